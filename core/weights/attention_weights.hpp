#pragma once
// The four projections of one multi-head attention layer and their per-head layout.
//
// Fused layout (design.md section 2): W^Q, W^K, W^V, W^O are each d_model x d_model. Head i
// owns columns [i*d_k, (i+1)*d_k) of W^Q, W^K and W^V, and rows [i*d_v, (i+1)*d_v) of W^O.
// "One big matrix split into h heads" and "h separate projections" are the same numbers.

#include <cstdint>
#include <optional>

#include "core/common/matrix.hpp"

namespace qkv {

struct AttentionWeights {
    MatrixF queryProjection;   // W^Q, d_model x d_model
    MatrixF keyProjection;     // W^K, d_model x d_model
    MatrixF valueProjection;   // W^V, d_model x d_model
    MatrixF outputProjection;  // W^O, d_model x d_model
    // Biases are all present or all absent.
    std::optional<RowVectorF> queryBias;   // b^Q, 1 x d_model
    std::optional<RowVectorF> keyBias;     // b^K
    std::optional<RowVectorF> valueBias;   // b^V
    std::optional<RowVectorF> outputBias;  // b^O

    Index d_model() const { return queryProjection.rows(); }
    bool hasBias() const { return queryBias.has_value(); }
};

enum class WeightInit {
    XavierUniform,  // U(-a, a), a = sqrt(6 / (fan_in + fan_out)) = sqrt(3 / d_model)
    Normal,         // N(0, 1 / d_model): unit-variance projections of unit-variance inputs
};

// Seeded initialisation; same seed, same bits. Biases (if requested) start at zero, as in
// PyTorch's nn.MultiheadAttention.
AttentionWeights initialiseWeights(Index d_model, std::uint64_t seed, WeightInit init,
                                   bool withBias);

// Column block of head `head` in a fused projection: W[:, head*d_k : (head+1)*d_k].
inline auto headColumns(const MatrixF& fused, Index head, Index d_k)
{
    return fused.middleCols(head * d_k, d_k);
}

// Multiplies W^Q, W^K, W^V, W^O by the user's scale factors (the UI's sharpen/flatten
// sliders). Biases are scaled with their matrix.
struct ProjectionScales {
    float query = 1.0f, key = 1.0f, value = 1.0f, output = 1.0f;

    bool operator==(const ProjectionScales&) const = default;
};
AttentionWeights scaledWeights(const AttentionWeights& weights, const ProjectionScales& scales);

// True when every entry of every matrix and bias is finite.
bool allFinite(const AttentionWeights& weights);

}  // namespace qkv
