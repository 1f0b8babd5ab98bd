#include "core/families/family_tensors.hpp"

#include "core/families/family_table.hpp"

namespace qkv {

EmbeddingTensorNames embeddingTensorNames(const FamilyRecipe& recipe, ModelStack stack)
{
    const EmbeddingPatterns& row = familyRow(recipe.family).embeddings;
    const std::string& p = recipe.prefix;
    return {tensorName(row.tokens, p, stack), tensorName(row.positions, p, stack), tensorName(row.tokenTypes, p, stack),
            tensorName(row.norm, p, stack)};
}

BlockTensorNames blockTensorNames(const FamilyRecipe& recipe, ModelStack stack, Index block)
{
    const BlockPatterns& row = familyRow(recipe.family).block;
    const std::string& p = recipe.prefix;
    BlockTensorNames names;
    names.attention = tensorName(row.attention, p, stack, block);
    names.attentionNorm = tensorName(row.attentionNorm, p, stack, block);
    names.attentionOutputNorm = tensorName(row.attentionOutputNorm, p, stack, block);
    if (stack == ModelStack::Decoder) {  // only an encoder-decoder's row names cross-attention
        names.crossAttention = tensorName(row.crossAttention, p, stack, block);
        names.crossAttentionNorm = tensorName(row.crossAttentionNorm, p, stack, block);
    }
    names.feedForwardIn = tensorName(row.feedForwardIn, p, stack, block);
    names.feedForwardGate = tensorName(row.feedForwardGate, p, stack, block);
    names.feedForwardGateUp = tensorName(row.feedForwardGateUp, p, stack, block);
    names.feedForwardOut = tensorName(row.feedForwardOut, p, stack, block);
    names.feedForwardNorm = tensorName(row.feedForwardNorm, p, stack, block);
    names.feedForwardOutputNorm = tensorName(row.feedForwardOutputNorm, p, stack, block);
    return names;
}

std::string finalNormName(const FamilyRecipe& recipe, ModelStack stack)
{
    return tensorName(familyRow(recipe.family).finalNorm, recipe.prefix, stack);
}

ReadoutTensorNames readoutTensorNames(const FamilyRecipe& recipe)
{
    const ReadoutPatterns& row = familyRow(recipe.family).readout;
    const ModelStack stack = ModelStack::Decoder;  // readout names have no {s}
    return {tensorName(row.transform, recipe.prefix, stack), tensorName(row.transformNorm, recipe.prefix, stack),
            tensorName(row.decoder, recipe.prefix, stack), tensorName(row.bias, recipe.prefix, stack)};
}

}  // namespace qkv
