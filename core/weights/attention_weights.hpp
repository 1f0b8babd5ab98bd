#pragma once
// The four projections of one attention layer and where each head lives in them. This is the
// one place that knows the weights' shapes; every other part asks it for a head's block.
//
// Symbols: d_model, h query heads, g key/value heads (g divides h), d_k = d_v the width of one
// head: d_model / h in the paper and the app's own layer by default, but a model's own number in
// general (Qwen3-0.6B: d_model 1024, h 16, d_k 128; T5: d_kv). W_i = W_i^Q (W_i^K)^T stays
// d_model x d_model of rank <= d_k whatever d_k is. d_v, the values' width, equals d_k except
// where a layer says otherwise (the paper keeps the two apart, section 3.2.2; a trained full
// W_i head is shown as W_i^Q = W_i, W_i^K = I with d_k = d_model and d_v = d_model / h):
//   W^V  d_model x (g d_v), W^O (h d_v) x d_model.
// Fused layout (docs/architecture.md, "Numerical conventions"):
//   W^Q  d_model x (h d_k)   head i owns columns [i d_k, (i+1) d_k)
//   W^K  d_model x (g d_k)   key/value head j owns columns [j d_k, (j+1) d_k)
//   W^V  d_model x (g d_k)
//   W^O  (h d_k) x d_model   head i owns rows [i d_k, (i+1) d_k)
// Query head i reads key/value head i / (h / g). g = h is the paper's multi-head attention
// (W^K and W^V square), g = 1 multi-query attention, anything between grouped-query attention.
// "One big matrix split into h heads" and "h separate projections" are the same numbers.

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "core/common/enum_names.hpp"
#include "core/common/matrix.hpp"

namespace qkv {

// How h query heads and g key/value heads share the columns of the projections.
struct HeadGrouping {
    Index headCount = 1;          // h
    Index keyValueHeadCount = 1;  // g, divides h
    Index d_k = 0;                // the width of one head (d_model / h unless the model says otherwise)
    Index d_v = 0;                // the width of one head's values; 0: d_v = d_k (every layer but a full W_i one)

    Index queryHeadsPerKeyValueHead() const { return headCount / keyValueHeadCount; }
    // The key/value head that query head `head` reads.
    Index keyValueHeadOf(Index head) const { return head / queryHeadsPerKeyValueHead(); }
    Index valueDim() const { return d_v > 0 ? d_v : d_k; }              // d_v as used
    Index keyValueWidth() const { return keyValueHeadCount * d_k; }     // g d_k: W^K's columns
    Index valueWidth() const { return keyValueHeadCount * valueDim(); }  // g d_v: W^V's columns
    Index queryWidth() const { return headCount * d_k; }                // h d_k
    Index concatWidth() const { return headCount * valueDim(); }        // h d_v: Concat, W^O's rows

    bool operator==(const HeadGrouping&) const = default;
};

// Whether a layer holds full W_i heads as the app shows them (a trained full W_i model):
// W_i^Q = W_i and W_i^K = I, so d_k = d_model, with values narrower than that (d_v = d_model / h).
inline bool isFullWiLayout(const HeadGrouping& g, Index d_model)
{
    return g.d_k == d_model && g.valueDim() != g.d_k;
}

struct AttentionWeights {
    MatrixF queryProjection;   // W^Q, d_model x (h d_k)
    MatrixF keyProjection;     // W^K, d_model x (g d_k)
    MatrixF valueProjection;   // W^V, d_model x (g d_v)
    MatrixF outputProjection;  // W^O, (h d_v) x d_model
    // Biases are all present or all absent.
    std::optional<RowVectorF> queryBias;   // b^Q, 1 x (h d_k)
    std::optional<RowVectorF> keyBias;     // b^K, 1 x (g d_k)
    std::optional<RowVectorF> valueBias;   // b^V, 1 x (g d_v)
    std::optional<RowVectorF> outputBias;  // b^O, 1 x d_model
    // Qwen3's q_norm and k_norm (Gemma 3 and OLMo 2 have their own): an RMSNorm with a learned
    // scale on Q and K after their projections and before any rotation,
    //   q <- gamma^Q * q / sqrt(mean(q^2) + eps),
    // over each head's d_k (d_k entries, shared by every head) or over the whole projection
    // (h d_k entries for Q, g d_k for K). Both present or both absent.
    std::optional<RowVectorF> queryNorm;  // gamma^Q, 1 x d_k or 1 x (h d_k)
    std::optional<RowVectorF> keyNorm;    // gamma^K, 1 x d_k or 1 x (g d_k)
    float queryKeyNormEpsilon = 1e-6f;    // the model's rms_norm_eps

    Index d_model() const { return queryProjection.rows(); }
    // Columns of W^K: g d_k (= d_model for the paper's multi-head attention); W^V has g d_v.
    Index keyValueWidth() const { return keyProjection.cols(); }
    // Columns of W^Q and rows of W^O: h d_k (= d_model when d_k = d_model / h).
    Index queryWidth() const { return queryProjection.cols(); }
    bool hasBias() const { return queryBias.has_value(); }
    bool hasQueryKeyNorm() const { return queryNorm.has_value(); }

    // The head layout of these matrices for h query heads: d_k = queryWidth() / h (the weights
    // carry their own head width), g = keyValueWidth() / d_k and d_v = W^V's columns / g (0 when
    // it is d_k). Meaningful when shapeProblem(h) is empty.
    HeadGrouping grouping(Index headCount) const;
    // Empty when the matrices and biases fit h query heads: W^Q d_model x (h d_k) for a whole d_k,
    // W^K d_model x (g d_k) with g dividing h, W^V d_model x (g d_v) and W^O (h d_v) x d_model for
    // a whole d_v, biases all present or all absent with matching widths. Otherwise what is
    // wrong, in words.
    std::string shapeProblem(Index headCount) const;

    // Head blocks (views into the matrices), d_model x d_k each (values: d_model x d_v); W^O's
    // are d_v x d_model rows.
    auto queryHead(Index head, const HeadGrouping& g) const { return queryProjection.middleCols(head * g.d_k, g.d_k); }
    auto keyHead(Index head, const HeadGrouping& g) const
    {
        return keyProjection.middleCols(g.keyValueHeadOf(head) * g.d_k, g.d_k);
    }
    auto valueHead(Index head, const HeadGrouping& g) const
    {
        return valueProjection.middleCols(g.keyValueHeadOf(head) * g.valueDim(), g.valueDim());
    }
    auto outputHead(Index head, const HeadGrouping& g) const
    {
        return outputProjection.middleRows(head * g.valueDim(), g.valueDim());
    }
    auto queryHead(Index head, const HeadGrouping& g) { return queryProjection.middleCols(head * g.d_k, g.d_k); }
    auto keyHead(Index head, const HeadGrouping& g)
    {
        return keyProjection.middleCols(g.keyValueHeadOf(head) * g.d_k, g.d_k);
    }
    auto valueHead(Index head, const HeadGrouping& g)
    {
        return valueProjection.middleCols(g.keyValueHeadOf(head) * g.valueDim(), g.valueDim());
    }
    auto outputHead(Index head, const HeadGrouping& g)
    {
        return outputProjection.middleRows(head * g.valueDim(), g.valueDim());
    }
};

enum class WeightInit {
    XavierUniform,  // U(-a, a), a = sqrt(6 / (fan_in + fan_out))
    Normal,         // N(0, 1 / d_model): unit-variance projections of unit-variance inputs
};

// The command-line and session spelling.
inline constexpr std::array<EnumName<WeightInit>, 2> kWeightInitNames{{
    {WeightInit::XavierUniform, "xavier"},
    {WeightInit::Normal, "normal"},
}};
std::string_view initName(WeightInit init);
bool parseInit(std::string_view name, WeightInit& init);

// Seeded initialisation; same seed, same bits. W^K and W^V get `keyValueWidth` columns
// (d_model for multi-head attention). Biases (if requested) start at zero, as in PyTorch's
// nn.MultiheadAttention.
AttentionWeights initialiseWeights(Index d_model, Index keyValueWidth, std::uint64_t seed, WeightInit init,
                                   bool withBias);
// The same for heads of any width: W^Q d_model x (h d_k), W^K and W^V d_model x (g d_k), W^O
// (h d_k) x d_model. With d_k = d_model / h these are the numbers of the overload above.
AttentionWeights initialiseWeights(Index d_model, const HeadGrouping& heads, std::uint64_t seed, WeightInit init,
                                   bool withBias);
inline AttentionWeights initialiseWeights(Index d_model, std::uint64_t seed, WeightInit init, bool withBias)
{
    return initialiseWeights(d_model, d_model, seed, init, withBias);
}
// One projection alone, exactly as initialiseWeights() draws it: `name` is "W_Q", "W_K",
// "W_V" or "W_O" (each matrix has its own stream). For presets that restore a head.
MatrixF initialiseProjection(Index rows, Index columns, std::uint64_t seed, WeightInit init, std::string_view name);

// Column block of head `head` in a fused projection: W[:, head*d_k : (head+1)*d_k].
inline auto headColumns(const MatrixF& fused, Index head, Index d_k) { return fused.middleCols(head * d_k, d_k); }

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
