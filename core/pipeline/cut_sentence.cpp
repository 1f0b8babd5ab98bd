#include "core/pipeline/cut_sentence.hpp"

#include "core/common/limits.hpp"

namespace qkv {

const SubwordTokenization* CutSentence::modelTokens() const
{
    return subwords && subwords->ok() ? &subwords->value() : nullptr;
}

std::shared_ptr<const CutSentence> cutSentence(const std::string& text, std::shared_ptr<const ModelInput> model)
{
    auto cut = std::make_shared<CutSentence>();
    cut->text = text;
    // Over the limit, cutting would only cost time: validation refuses the text by its size.
    if (text.size() <= limits::maxSentenceBytes) cut->words = tokenize(text);
    if (model) cut->subwords = model->tokenizer().encode(text);
    cut->model = std::move(model);
    return cut;
}

std::shared_ptr<const CutSentence> recutSentence(const std::shared_ptr<const CutSentence>& previous,
                                                 const std::string& text,
                                                 const std::shared_ptr<const ModelInput>& model)
{
    if (previous && previous->model == model && previous->text == text) return previous;
    return cutSentence(text, model);
}

CutSentences cutSentences(const Config& config, const UserInputs& inputs, const CutSentences& previous)
{
    // A trained model reads the words; its vocabulary is not a subword tokenizer.
    const std::shared_ptr<const ModelInput> model =
        config.embeddings == EmbeddingKind::Model && !inputs.trainedModel ? inputs.modelInput : nullptr;
    return {recutSentence(previous.source, config.sourceText, model),
            recutSentence(previous.target, config.targetText, model)};
}

}  // namespace qkv
