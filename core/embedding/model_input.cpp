#include "core/embedding/model_input.hpp"

namespace qkv {

ModelInput::ModelInput(SubwordTokenizer tokenizer, ModelInputTables tables, std::string origin)
    : tokenizer_(std::move(tokenizer)), tables_(std::move(tables)), origin_(std::move(origin))
{
}

ModelInput::ModelInput(SubwordTokenizer tokenizer, HiddenStatesOf hiddenStates, HiddenStatesShape shape,
                       std::string origin)
    : tokenizer_(std::move(tokenizer)), hiddenStates_(std::move(hiddenStates)), shape_(std::move(shape)),
      origin_(std::move(origin))
{
}

Expected<ModelSentence> ModelInput::embed(std::string_view text) const
{
    Expected<SubwordTokenization> tokens = tokenizer_.encode(text);
    if (!tokens) return Error{tokens.error()};
    Expected<MatrixF> input = embedTokens(*tokens);
    if (!input) return Error{input.error()};
    return ModelSentence{std::move(*tokens), std::move(*input)};
}

Expected<MatrixF> ModelInput::embedTokens(const SubwordTokenization& tokens) const
{
    const std::vector<std::int32_t> ids = tokens.ids();
    if (hiddenStates_) return hiddenStates_(ids);
    return tables_.recipe == ModelInputRecipe::Bert
               ? bertModelInput(ids, tables_.tokenEmbeddings, tables_.positionEmbeddings, tables_.tokenTypeEmbeddings,
                                tables_.norm)
               : gpt2ModelInput(ids, tables_.tokenEmbeddings, tables_.positionEmbeddings, tables_.norm);
}

void ModelInput::setWholeModel(std::shared_ptr<const PretrainedModel> model, Index modelIndex)
{
    wholeModel_ = std::move(model);
    wholeModelLayer_ = wholeModel_ ? modelIndex : -1;
}

std::string ModelInput::description() const
{
    const std::string formula = hiddenStates_ ? shape_.formula : std::string(modelInputFormula(tables_.recipe));
    return formula + "; " + tokenizer_.description() + "; up to " +
           std::to_string(positionCount()) + " tokens";
}

std::string_view modelInputFormula(ModelInputRecipe recipe)
{
    return recipe == ModelInputRecipe::Bert ? "X = LayerNorm(token + position + token type), as BERT builds it"
                                            : "X = ln_1(token + position), as GPT-2 builds it";
}

}  // namespace qkv
