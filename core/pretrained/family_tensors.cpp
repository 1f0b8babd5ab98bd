#include "core/pretrained/family_tensors.hpp"

namespace qkv {

EmbeddingTensorNames embeddingTensorNames(const FamilyRecipe& recipe, ModelStack stack)
{
    (void)stack;  // one table set per model in these families
    const std::string& p = recipe.prefix;
    EmbeddingTensorNames names;
    switch (recipe.family) {
    case PretrainedFamily::Bert:
    case PretrainedFamily::Roberta:
        names.tokens = p + "embeddings.word_embeddings.weight";
        names.positions = p + "embeddings.position_embeddings.weight";
        names.tokenTypes = p + "embeddings.token_type_embeddings.weight";
        names.norm = p + "embeddings.LayerNorm";
        break;
    case PretrainedFamily::DistilBert:
        names.tokens = p + "embeddings.word_embeddings.weight";
        names.positions = p + "embeddings.position_embeddings.weight";
        names.norm = p + "embeddings.LayerNorm";
        break;
    case PretrainedFamily::Gpt2:
        names.tokens = p + "wte.weight";
        names.positions = p + "wpe.weight";
        break;
    case PretrainedFamily::Llama:
    case PretrainedFamily::Bart:
    case PretrainedFamily::Marian: break;  // familyRecipe refuses them until their names are here
    }
    return names;
}

BlockTensorNames blockTensorNames(const FamilyRecipe& recipe, ModelStack stack, Index block)
{
    (void)stack;
    const std::string& p = recipe.prefix;
    const std::string b = std::to_string(block);
    BlockTensorNames names;
    switch (recipe.family) {
    case PretrainedFamily::Bert:
    case PretrainedFamily::Roberta: {
        const std::string layer = p + "encoder.layer." + b + ".";
        names.attention = layer + "attention";
        names.attentionNorm = layer + "attention.output.LayerNorm";
        names.feedForwardIn = layer + "intermediate.dense";
        names.feedForwardOut = layer + "output.dense";
        names.feedForwardNorm = layer + "output.LayerNorm";
        break;
    }
    case PretrainedFamily::DistilBert: {
        const std::string layer = p + "transformer.layer." + b + ".";
        names.attention = layer + "attention";
        names.attentionNorm = layer + "sa_layer_norm";
        names.feedForwardIn = layer + "ffn.lin1";
        names.feedForwardOut = layer + "ffn.lin2";
        names.feedForwardNorm = layer + "output_layer_norm";
        break;
    }
    case PretrainedFamily::Gpt2: {
        const std::string layer = p + "h." + b + ".";
        names.attention = layer + "attn";
        names.attentionNorm = layer + "ln_1";
        names.feedForwardIn = layer + "mlp.c_fc";
        names.feedForwardOut = layer + "mlp.c_proj";
        names.feedForwardNorm = layer + "ln_2";
        break;
    }
    case PretrainedFamily::Llama:
    case PretrainedFamily::Bart:
    case PretrainedFamily::Marian: break;
    }
    return names;
}

std::string finalNormName(const FamilyRecipe& recipe, ModelStack stack)
{
    (void)stack;
    return recipe.family == PretrainedFamily::Gpt2 ? recipe.prefix + "ln_f" : std::string();
}

ReadoutTensorNames readoutTensorNames(const FamilyRecipe& recipe)
{
    ReadoutTensorNames names;
    switch (recipe.family) {
    case PretrainedFamily::Bert:
        names.transform = "cls.predictions.transform.dense";
        names.transformNorm = "cls.predictions.transform.LayerNorm";
        names.decoder = "cls.predictions.decoder.weight";
        names.bias = "cls.predictions.bias";
        break;
    case PretrainedFamily::Roberta:
        names.transform = "lm_head.dense";
        names.transformNorm = "lm_head.layer_norm";
        names.decoder = "lm_head.decoder.weight";
        names.bias = "lm_head.bias";
        break;
    case PretrainedFamily::DistilBert:
        names.transform = "vocab_transform";
        names.transformNorm = "vocab_layer_norm";
        names.decoder = "vocab_projector.weight";
        names.bias = "vocab_projector.bias";
        break;
    case PretrainedFamily::Gpt2: names.decoder = "lm_head.weight"; break;
    case PretrainedFamily::Llama:
    case PretrainedFamily::Bart:
    case PretrainedFamily::Marian: break;
    }
    return names;
}

}  // namespace qkv
