#include "ui/document/examples.hpp"

#include <QCoreApplication>

#include <filesystem>

#include "core/io/data_directory.hpp"

namespace qkv::ui {
namespace {
// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::Examples)
};
}  // namespace

const std::vector<Example>& examples()
{
    static const std::vector<Example> all{
        {QStringLiteral("translation"), Text::tr("Translation Alignment"), QStringLiteral("translation.qkv.json"),
         Text::tr("Cross-attention from French queries to English keys: head 1 same meaning, 2 same position, "
                  "3 previous token, 4 uniform")},
        {QStringLiteral("decoder"), Text::tr("Decoder: Previous and Same Token"), QStringLiteral("decoder.qkv.json"),
         Text::tr("Masked self-attention on a sentence that repeats its words: head 1 previous token, 2 same token, "
                  "3 uniform, 4 random")},
        {QStringLiteral("paper-random"), Text::tr("The Paper's Random Initialisation"),
         QStringLiteral("paper-random.qkv.json"),
         Text::tr("Every head as a freshly initialised layer: Xavier uniform weights, no presets")},
        {QStringLiteral("low-rank"), Text::tr("A Low-Rank Head"), QStringLiteral("low-rank.qkv.json"),
         Text::tr("Encoder self-attention; head 1 has rank r = 2 < d_k = 16 (see the factored W_i)")},
        {QStringLiteral("trained-reverse"), Text::tr("A Model Trained Here to Reverse"),
         QStringLiteral("trained-reverse.qkv.json"),
         Text::tr("A model the Train tab trained on Reverse and kept: its cross-attention heads learned to look at "
                  "the source symbol each target position copies")},
    };
    return all;
}

const Example& firstStartExample() { return examples().front(); }

qkv::Expected<qkv::Session> readExample(const Example& example)
{
    // Data files (core/io/data_directory.hpp): installed in <prefix>/share/qkv-studio/examples,
    // copied to <build>/share/qkv-studio/examples in the build tree.
    const std::filesystem::path folder = qkv::examplesDirectory();
    const std::filesystem::path path = folder / example.fileName.toStdString();
    std::error_code error;
    if (!std::filesystem::exists(path, error))
        return qkv::Error{"the example " + example.fileName.toStdString() + " is missing: " + folder.string() +
                          " (the data folder " + qkv::dataDirectoryOrigin() +
                          ") does not have it. Reinstall QKV Studio, or set QKV_STUDIO_DATA_DIR to the "
                          "folder that holds examples/."};
    return qkv::readSession(path.string());
}

}  // namespace qkv::ui
