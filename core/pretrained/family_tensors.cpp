#include "core/pretrained/family_tensors.hpp"

namespace qkv {

namespace {

// "encoder" or "decoder": BART's and Marian's names for the stacks.
std::string stackName(ModelStack stack) { return stack == ModelStack::Encoder ? "encoder" : "decoder"; }

}  // namespace

EmbeddingTensorNames embeddingTensorNames(const FamilyRecipe& recipe, ModelStack stack)
{
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
    case PretrainedFamily::Llama: names.tokens = p + "embed_tokens.weight"; break;
    case PretrainedFamily::Bart:
        names.tokens = p + "shared.weight";  // both stacks' table (embed_tokens are tied copies)
        names.positions = p + stackName(stack) + ".embed_positions.weight";
        names.norm = p + stackName(stack) + ".layernorm_embedding";
        break;
    case PretrainedFamily::Marian: names.tokens = p + "shared.weight"; break;
    }
    return names;
}

BlockTensorNames blockTensorNames(const FamilyRecipe& recipe, ModelStack stack, Index block)
{
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
    case PretrainedFamily::Llama: {
        const std::string layer = p + "layers." + b + ".";
        names.attention = layer + "self_attn";
        names.attentionNorm = layer + "input_layernorm";
        names.feedForwardIn = layer + "mlp.up_proj";
        names.feedForwardGate = layer + "mlp.gate_proj";
        names.feedForwardOut = layer + "mlp.down_proj";
        names.feedForwardNorm = layer + "post_attention_layernorm";
        break;
    }
    case PretrainedFamily::Bart:
    case PretrainedFamily::Marian: {
        const std::string layer = p + stackName(stack) + ".layers." + b + ".";
        names.attention = layer + "self_attn";
        names.attentionNorm = layer + "self_attn_layer_norm";
        if (stack == ModelStack::Decoder) {
            names.crossAttention = layer + "encoder_attn";
            names.crossAttentionNorm = layer + "encoder_attn_layer_norm";
        }
        names.feedForwardIn = layer + "fc1";
        names.feedForwardOut = layer + "fc2";
        names.feedForwardNorm = layer + "final_layer_norm";
        break;
    }
    }
    return names;
}

std::string finalNormName(const FamilyRecipe& recipe, ModelStack stack)
{
    (void)stack;  // BART and Marian (post-LN) have none; mBART's would be per stack
    switch (recipe.family) {
    case PretrainedFamily::Gpt2: return recipe.prefix + "ln_f";
    case PretrainedFamily::Llama: return recipe.prefix + "norm";
    default: return std::string();
    }
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
    case PretrainedFamily::Gpt2:
    case PretrainedFamily::Llama: names.decoder = "lm_head.weight"; break;
    case PretrainedFamily::Bart:
    case PretrainedFamily::Marian:
        names.decoder = "lm_head.weight";  // tied to model.shared: usually not stored
        names.bias = "final_logits_bias";  // 1 x V
        break;
    }
    return names;
}

}  // namespace qkv
