#include "ui/wholemodel/missing_tokenizer.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include "core/families/family_table.hpp"
#include "core/modelfiles/checkpoint_config.hpp"
#include "core/text/subword_tokenizer.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::MissingTokenizer)
};

// The folder a checkpoint's tokenizer files sit in: the folder itself, or the file's.
QString checkpointFolder(const QString& weightsFile)
{
    const QFileInfo info(weightsFile);
    if (info.isDir()) return info.absoluteFilePath();
    const QString suffix = info.suffix().toLower();
    if (suffix != QLatin1String("safetensors") && suffix != QLatin1String("json")) return {};
    return info.absolutePath();
}

}  // namespace

QString tokenizerFilesOf(const QString& folder)
{
    const qkv::Expected<qkv::CheckpointConfig> config =
        qkv::readCheckpointConfig(QDir(folder).filePath(QStringLiteral("config.json")).toStdString());
    const qkv::FamilyRow* row = config ? qkv::familyOfModelType(config->modelType) : nullptr;
    switch (row ? row->value : qkv::Family::Llama) {
    case qkv::Family::Bert:
    case qkv::Family::DistilBert: return Text::tr("vocab.txt (or tokenizer.json)");
    case qkv::Family::Roberta:
    case qkv::Family::Gpt2:
    case qkv::Family::Bart: return Text::tr("vocab.json and merges.txt (or tokenizer.json)");
    case qkv::Family::Marian: return Text::tr("source.spm, target.spm and vocab.json");
    case qkv::Family::T5: return Text::tr("spiece.model (or tokenizer.json)");
    default: break;
    }
    return Text::tr("tokenizer.json (or tokenizer.model)");
}

QString missingTokenizerText(const QString& weightsFile)
{
    if (weightsFile.isEmpty()) return {};
    const QString folder = checkpointFolder(weightsFile);
    if (folder.isEmpty() || !QFileInfo(folder).isDir()) return {};
    if (qkv::hasSubwordTokenizerFiles(folder.toStdString())) return {};
    return Text::tr("The checkpoint's folder has no tokenizer files, so no typed sentence can reach the whole model "
                    "and it is not run:\n%1\n\nCopy the model's tokenizer files, %2, from where you got the model into "
                    "that folder, then open it again with File > Open Checkpoint….")
        .arg(QDir::toNativeSeparators(folder), tokenizerFilesOf(folder));
}

}  // namespace qkv::ui
