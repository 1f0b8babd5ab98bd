#pragma once
// Heads that read position: previous-token, next-token and same-position (docs/presets.md).
//
// With X = s E + PE, the score of query t and key u is x_t^T W_i x_u, and its positional part
// PE(t)^T W_i PE(u) can be made a sharp function of (t, u). The word part s E is noise to such
// a head; it is small once the token embedding is scaled down (s = 0.1, set by the preset and
// shown to the user). Within the d_model x d_model bilinear forms of rank <= d_k on the
// leading directions of the encoding, we pick the one that puts the softmax weight on the
// intended key: W_i^Q, W_i^K are fitted by gradient descent on the cross-entropy of the
// intended key, over sentences of 5 to 128 tokens whose words are Gaussian noise of scale s.
// The fit is deterministic (fixed seeds, double precision).

#include "core/common/matrix.hpp"
#include "core/weights/head_preset.hpp"

namespace qkv {

// Sentences the positional fit sees (5 to this many tokens).
inline constexpr Index positionalFitSpan = 128;

// The fitted factors, kept at their rank r <= min(d_k, 32): a head's W_i^Q is `query` in its
// first r columns and zeros after (likewise W_i^K), so a cache holds d_model x r, not d_k.
struct PositionalHead {
    MatrixD query;  // d_model x r: the first r columns of W_i^Q
    MatrixD key;    // d_model x r: the first r columns of W_i^K
};

// The fitted head for `kind` (PreviousToken, NextToken or SamePosition) at this d_model, d_k
// and token-embedding scale, for scores scaled by 1/sqrt(d_k). ~0.1-1 s on one thread: cache it
// (PresetCache). Only small products: it never starts a thread (core/common/parallelism.hpp).
PositionalHead fitPositionalHead(HeadPresetKind kind, Index d_model, Index d_k, double tokenScale);

// The key a positional head intends for query t of n_q queries and n_k keys (clamped as the
// presets promise): t - 1 (0 for t = 0), t + 1 (the last query: itself), t (the last key when
// t >= n_k).
Index intendedPositionalKey(HeadPresetKind kind, Index t, Index n_q, Index n_k);

}  // namespace qkv
