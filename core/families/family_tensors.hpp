#pragma once
// A family's tensor names for the whole model, filled in from its row's patterns
// (family_table.hpp: the one place that says them, the attention projections' too). A "module" below is a
// path whose parameters are module + ".weight" and module + ".bias". An empty string: the family
// has no such part.

#include <string>

#include "core/families/family_recipe.hpp"

namespace qkv {

// The names of a model's parts: Text is std::string for a checkpoint's names, std::string_view for
// a family row's patterns (family_table.hpp).
template <class Text>
struct EmbeddingNames {
    Text tokens{};      // V x d_model table (a full tensor name)
    Text positions{};   // P x d_model table, or empty (rotary, sinusoidal, none)
    Text tokenTypes{};  // T x d_model table, or empty
    Text norm{};        // module of the norm over the summed embeddings, or empty
};

template <class Text>
struct BlockNames {
    Text attention{};           // the self-attention module (a CheckpointLayer's name)
    Text attentionNorm{};       // its norm: after it (post) or before it (pre); none (OLMo 2): empty
    Text attentionOutputNorm{};  // a norm on the sublayer's output before the residual (Gemma 2, OLMo 2)
    Text crossAttention{};      // an encoder-decoder's decoder blocks only
    Text crossAttentionNorm{};  // likewise
    Text feedForwardIn{};       // W_1 (gated MLP: the up projection)
    Text feedForwardGate{};     // gated MLP only (LLaMA's gate_proj)
    Text feedForwardGateUp{};   // a gated MLP's gate and up in one nn.Linear, gate rows first (Phi-3)
    Text feedForwardOut{};      // W_2
    Text feedForwardNorm{};     // before the MLP (pre) or after the residual (post); none: empty
    Text feedForwardOutputNorm{};  // on the MLP's output before the residual (Gemma 2, OLMo 2)
};

template <class Text>
struct ReadoutNames {
    Text transform{};      // MaskedLm: the dense layer before the decoder
    Text transformNorm{};  // MaskedLm: its norm
    Text decoder{};        // the full tensor name of E when stored (untied, or stored anyway)
    Text bias{};           // the full tensor name of the logits' bias, or empty
};

using EmbeddingTensorNames = EmbeddingNames<std::string>;
using BlockTensorNames = BlockNames<std::string>;
using ReadoutTensorNames = ReadoutNames<std::string>;

EmbeddingTensorNames embeddingTensorNames(const FamilyRecipe& recipe, ModelStack stack);
BlockTensorNames blockTensorNames(const FamilyRecipe& recipe, ModelStack stack, Index block);
// The module of the final norm of `stack` (GPT-2's ln_f), or empty.
std::string finalNormName(const FamilyRecipe& recipe, ModelStack stack);
ReadoutTensorNames readoutTensorNames(const FamilyRecipe& recipe);

}  // namespace qkv
