#pragma once
// The shape of a small transformer the app trains (docs/architecture.md, "Model"): which blocks, how wide,
// where the norms sit, how positions enter and how each head forms its scores. Families differ
// only in this description, never in copies of the forward pass.
//
// Symbols (one legend for core/trainable): V vocabulary size, P positions, d_model, h heads,
// d_k = d_model / h, d_ff the MLP's hidden width, n_s source tokens, n_t target tokens.
//
// Blocks, in order (residual stream x, n x d_model):
//   encoder layer  : x += SelfAttention(norm(x));                x += MLP(norm(x))     (pre-norm)
//   decoder layer  : x += MaskedSelfAttention(norm(x));
//                    x += CrossAttention(norm(x), encoder output)  (only with encoder layers)
//                    x += MLP(norm(x))
//   post-norm (the paper, section 3.1) computes x = norm(x + Sublayer(x)) instead; pre-norm adds a
//   final norm after the last layer of each stack. d_ff = 0 leaves the MLP out, norm None the norms.
//   readout        : logits = x W_out + b_out  (n_t x V).

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/common/enum_names.hpp"
#include "core/common/matrix.hpp"

namespace qkv {

// How a head turns X_q and X_kv into scores; everything else in the model is equal.
enum class ScoreForm {
    Factored,  // the paper: scores_i = (X_q W_i^Q)(X_kv W_i^K)^T / sqrt(d_k), W_i^Q, W_i^K d_model x d_k
    Full,      // one matrix per head: scores_i = X_q W_i X_kv^T / sqrt(d_k), W_i d_model x d_model
};
inline constexpr std::array<EnumName<ScoreForm>, 2> kScoreFormNames{{
    {ScoreForm::Factored, "factored"},
    {ScoreForm::Full, "full"},
}};

enum class NormKind { None, LayerNorm };
inline constexpr std::array<EnumName<NormKind>, 2> kNormKindNames{{
    {NormKind::None, "none"},
    {NormKind::LayerNorm, "layernorm"},
}};
enum class NormPlacement { Pre, Post };
inline constexpr std::array<EnumName<NormPlacement>, 2> kNormPlacementNames{{
    {NormPlacement::Pre, "pre"},
    {NormPlacement::Post, "post"},
}};
enum class Activation { Relu, Gelu };  // Gelu: the exact erf form (PyTorch's default)
inline constexpr std::array<EnumName<Activation>, 2> kActivationNames{{
    {Activation::Relu, "relu"},
    {Activation::Gelu, "gelu"},
}};
enum class PositionKind {
    Sinusoidal,  // PE of paper section 3.5 added to the token embedding (not learned)
    Learned,     // a learned P x d_model table added to the token embedding
};
inline constexpr std::array<EnumName<PositionKind>, 2> kPositionKindNames{{
    {PositionKind::Sinusoidal, "sinusoidal"},
    {PositionKind::Learned, "learned"},
}};

// The sizes of a model the app trains on a desktop: small enough that a step stays interactive.
// The training limits (core/training/training_limits.hpp) offer these; ModelSpec::problem checks
// them again for a model read back from a session.
inline constexpr Index maxTrainedDModel = 1024;
inline constexpr Index maxTrainedLayers = 12;  // per stack
inline constexpr Index maxTrainedVocabulary = 1 << 16;
inline constexpr Index maxTrainedPositions = 1024;

struct ModelSpec {
    Index vocabularySize = 0;  // V (token ids 0..V-1; one table for source and target)
    Index maxPositions = 64;   // P: the longest sequence either stack reads
    Index d_model = 64;
    Index headCount = 4;       // h, divides d_model
    Index encoderLayers = 1;   // 0: decoder only (then the decoder has no cross-attention)
    Index decoderLayers = 1;
    Index d_ff = 256;          // 0: no MLP (attention-only layers)
    NormKind norm = NormKind::LayerNorm;
    NormPlacement placement = NormPlacement::Pre;
    double normEpsilon = 1e-5;
    Activation activation = Activation::Relu;
    PositionKind positions = PositionKind::Sinusoidal;
    ScoreForm scoreForm = ScoreForm::Factored;
    // Embedding multiplied by sqrt(d_model) before positions are added (paper section 3.4).
    bool scaleEmbedding = true;

    Index d_k() const { return headCount > 0 ? d_model / headCount : 0; }
    bool hasEncoder() const { return encoderLayers > 0; }
    // Empty when the numbers fit together (h divides d_model, sizes within limits); else what
    // is wrong, in words.
    std::string problem() const;
    bool operator==(const ModelSpec&) const = default;
};

}  // namespace qkv
