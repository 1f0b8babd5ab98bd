#include "ui/wholemodel/missing_tokenizer.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include "core/families/family_table.hpp"
#include "core/modelfiles/checkpoint_config.hpp"
#include "core/text/subword_tokenizer.hpp"

#include <filesystem>

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
                    "that folder and open it again (File > Open Checkpoint…), or point at its tokenizer.json where it "
                    "is with Choose tokenizer.json… on the Model tab.")
        .arg(QDir::toNativeSeparators(folder), tokenizerFilesOf(folder));
}

qkv::Expected<std::shared_ptr<const qkv::PretrainedModel>> loadModelWithTokenizer(const std::string& weightsFile,
                                                                                  const std::string& tokenizerFile)
{
    const std::filesystem::path parent = std::filesystem::path(tokenizerFile).parent_path();
    const std::string folder = parent.empty() ? std::string(".") : parent.string();
    // The tokenizer first: a wrong file is refused before the weights are read.
    qkv::Expected<qkv::SourceTargetTokenizers> tokenizers = qkv::Error{};
    if (qkv::Expected<qkv::SubwordTokenizer> one = qkv::loadSubwordTokenizer(folder)) tokenizers = qkv::SourceTargetTokenizers{*one, *one};
    else tokenizers = qkv::Error{one.error()};
    if (!tokenizers) return qkv::Error{tokenizers.error()};
    qkv::Expected<qkv::PretrainedModel> model = qkv::openPretrainedModel(weightsFile);
    if (!model) return qkv::Error{model.error()};
    if (model->recipe.encoderDecoder()) {
        tokenizers = qkv::loadSourceTargetTokenizers(folder);  // Marian: source.spm and target.spm
        if (!tokenizers) return qkv::Error{tokenizers.error()};
    }
    for (const qkv::SubwordTokenizer* tokenizer : {&tokenizers->source, &tokenizers->target})
        if (static_cast<qkv::Index>(tokenizer->vocabularySize()) > model->recipe.vocabularySize)
            return qkv::Error{folder + ": the tokenizer has " + std::to_string(tokenizer->vocabularySize()) +
                              " tokens but the model's token table has " + std::to_string(model->recipe.vocabularySize) +
                              " rows: it is another model's tokenizer."};
    model->tokenizer = std::move(tokenizers->source);
    if (model->recipe.encoderDecoder()) model->targetTokenizer = std::move(tokenizers->target);
    model->tokenizerFolder = folder;
    model->notes.push_back("The tokenizer comes from " + folder + " (chosen for this model).");
    return std::make_shared<const qkv::PretrainedModel>(std::move(*model));
}

}  // namespace qkv::ui
