#pragma once
// Cost model of one multi-head attention layer: parameters, bytes and FLOPs, one explicit
// named formula per tensor (the llm.c way), with a formula string for every number so a
// table can show "name | formula | value".
//
// Symbols (used in every formula below and in the formula strings):
//   d_model  model width
//   h        query heads
//   g        key/value heads; g divides h. g == h: multi-head (MHA), g == 1: multi-query
//            (MQA), otherwise grouped-query (GQA): query head i uses key/value head
//            i / (h / g)
//   d_k, d_v per-head query/key and value widths: d_model / h (Factored, FullBilinear) unless
//            the layer sets its own (LayerShape::headWidth, a model's head_dim), or d_model
//            (Unreduced). W_i = W_i^Q (W_i^K)^T is d_model x d_model whatever d_k is.
//   n_q, n_k query and key/value token counts
//
// Layouts (HeadLayout):
//   Factored      the paper's heads (section 3.2.2): W^Q is d_model x (h d_k), W^K and W^V are
//                 d_model x (g d_k), W^O is (h d_v) x d_model. The score path of head i is the
//                 two thin factors W_i^Q, W_i^K: 2 d_model d_k parameters.
//   FullBilinear  one full d_model x d_model W_i = W_i^Q (W_i^K)^T per query head replaces
//                 W^Q and W^K in the score path (h d_model^2 parameters); values and output
//                 as in Factored. With biases, (x W_i^Q + b_i^Q)(y W_i^K + b_i^K)^T =
//                 x W_i y^T + x (W_i^Q b_i^K^T) + (W_i^K b_i^Q^T) . y + b_i^Q b_i^K^T: the
//                 query-only and constant terms shift a whole row of scores, which softmax
//                 over keys ignores, so the same attention needs only the key-side vector
//                 u_i = W_i^K (b_i^Q)^T (d_model numbers per head). That is what is counted.
//   Unreduced     d_k = d_v = d_model for every head (as some papers do): W^Q is
//                 d_model x (h d_model), W^K, W^V are d_model x (g d_model), W^O is
//                 (h d_model) x d_model.
//
// FLOPs: a multiply-add counts as 2 FLOPs (a GEMM of (m x k)(k x n) is 2 m k n). Adding a
// bias counts 1 per output entry. Scaling scores by 1/sqrt(d_k) counts 1 per score. Softmax
// counts 5 per score: max, subtract, exp, sum, divide (exp counted as one FLOP). Masking is
// not counted (the work of a full, unmasked score matrix is counted).
//
// Arithmetic: std::int64_t with saturating multiplication and addition (never undefined
// behaviour). Within the cost model's limits (limits::maxCostDModel, maxCostHeads, maxCostTokens)
// every count fits exactly; the app's own limits (limits::maxDModel, maxTokens) are far inside. Values are
// meaningful only for a shape validateLayerShape() accepts; for any other input they are
// unspecified but computing them never crashes (no division by zero, no overflow).

#include <cstdint>
#include <string>
#include <vector>

#include "core/common/expected.hpp"
#include "core/common/limits.hpp"

namespace qkv {

using Count = std::int64_t;

enum class HeadLayout { Factored, FullBilinear, Unreduced };
enum class AttentionKind { MultiHead, GroupedQuery, MultiQuery };

struct LayerShape {
    Count d_model = 512;
    Count heads = 8;          // h
    Count keyValueHeads = 8;  // g; divides h
    bool withBias = true;
    HeadLayout layout = HeadLayout::Factored;
    Count headWidth = 0;      // d_k when the layer sets it (then h need not divide d_model); 0: d_model / h
};

// One line of a cost table. formula is symbolic then numeric, e.g.
// "d_model * d_model = 512 * 512"; value is the exact count.
struct CostRow {
    std::string name;
    std::string formula;
    Count value = 0;
};

// ---------------------------------------------------------------------------------------
// Shapes

// h >= 1, g >= 1, d_model >= 1, within limits::maxCostHeads and maxCostDModel; h divides d_model
// unless headWidth is set (Factored and FullBilinear; the message names the nearest valid h);
// headWidth <= limits::maxCostDModel; g divides h (the message lists the
// valid g). Error text is one sentence a person can act on.
Status validateLayerShape(const LayerShape& shape);
// 1 <= n_q, n_k <= limits::maxCostTokens.
Status validateTokenCounts(Count n_q, Count n_k);

// MHA (g == h), MQA (g == 1, h > 1), GQA otherwise.
AttentionKind attentionKind(const LayerShape& shape);
const char* toString(HeadLayout layout);
const char* toString(AttentionKind kind);

// d_k = d_v: headWidth when set, else d_model / h (Factored, FullBilinear); d_model (Unreduced);
// 0 when h < 1.
Count headDim(const LayerShape& shape);

// Divisors of n in increasing order (the valid h for d_model = n); empty for n < 1.
std::vector<Count> divisorsOf(Count n);

// ---------------------------------------------------------------------------------------
// Parameters, one function per tensor. Each is 0 when the layout has no such tensor
// (W^Q, W^K and b^Q, b^K in FullBilinear; W_1..W_h and u_1..u_h outside it; every bias
// when !withBias).

Count queryWeightParameters(const LayerShape& shape);     // W^Q: d_model x (h d_k)
Count keyWeightParameters(const LayerShape& shape);       // W^K: d_model x (g d_k)
Count valueWeightParameters(const LayerShape& shape);     // W^V: d_model x (g d_v)
Count outputWeightParameters(const LayerShape& shape);    // W^O: (h d_v) x d_model
Count bilinearWeightParameters(const LayerShape& shape);  // W_1..W_h: h d_model^2 (FullBilinear)
Count queryBiasParameters(const LayerShape& shape);       // b^Q: h d_k
Count keyBiasParameters(const LayerShape& shape);         // b^K: g d_k
Count valueBiasParameters(const LayerShape& shape);       // b^V: g d_v
Count outputBiasParameters(const LayerShape& shape);      // b^O: d_model
Count bilinearBiasParameters(const LayerShape& shape);    // u_1..u_h: h d_model (FullBilinear)

struct ParameterBreakdown {
    Count queryWeight = 0, keyWeight = 0, valueWeight = 0, outputWeight = 0, bilinearWeight = 0;
    Count queryBias = 0, keyBias = 0, valueBias = 0, outputBias = 0, bilinearBias = 0;
    Count weights() const;  // sum of the weight matrices
    Count biases() const;   // sum of the bias vectors
    Count total() const;    // weights() + biases()
};
ParameterBreakdown layerParameters(const LayerShape& shape);
// Standard layer with biases: 4 d_model^2 + 4 d_model.
Count layerParameterCount(const LayerShape& shape);

// One row per tensor the layout has (W^Q, W^K, W^V, W^O, then biases; FullBilinear has
// W_1..W_h instead of W^Q, W^K and u_1..u_h instead of b^Q, b^K), then a "total" row.
std::vector<CostRow> layerParameterRows(const LayerShape& shape);

// ---------------------------------------------------------------------------------------
// The score path: the weights that make Q_i K_i^T (weights only, no biases), float32 bytes.

struct ScorePathCost {
    Count parametersPerHead = 0;
    Count parametersPerLayer = 0;
    Count bytesPerHead = 0;   // float32: 4 * parametersPerHead
    Count bytesPerLayer = 0;  // float32: 4 * parametersPerLayer
};
// For shape.layout:
//   Factored:     per head 2 d_model d_k (W_i^Q, W_i^K); per layer d_model (h + g) d_k
//                 (W^Q and W^K; with GQA/MQA one key factor serves h/g heads)
//   FullBilinear: per head d_model^2 (W_i); per layer h d_model^2
//   Unreduced:    per head 2 d_model^2; per layer d_model (h + g) d_model
ScorePathCost scorePathCost(const LayerShape& shape);

// Factored heads vs a full W_i per head for the same d_model, h, g.
struct ScorePathComparison {
    ScorePathCost factored;
    ScorePathCost full;
};
// d_k: the heads' width, 0 for d_model / h.
ScorePathComparison compareScorePath(Count d_model, Count heads, Count keyValueHeads, Count d_k = 0);

// ---------------------------------------------------------------------------------------
// FLOPs of one head's unscaled scores Q_i K_i^T, n_q queries and n_k keys, no biases.

struct ScoreFlops {
    Count queryProjection = 0;  // factored: X_q W_i^Q, 2 n_q d_model d_k;  full: X_q W_i, 2 n_q d_model^2
    Count keyProjection = 0;    // factored: X_kv W_i^K, 2 n_k d_model d_k; full: none
    Count product = 0;          // factored: Q_i K_i^T, 2 n_q n_k d_k;     full: (X_q W_i) X_kv^T, 2 n_q n_k d_model
    Count total() const;  // saturating sum of the three
};
// 2 n_q d_model d_k + 2 n_k d_model d_k + 2 n_q n_k d_k
ScoreFlops scoreFlopsFactored(Count n_q, Count n_k, Count d_model, Count d_k);
// 2 n_q d_model^2 + 2 n_q n_k d_model
ScoreFlops scoreFlopsFullBilinear(Count n_q, Count n_k, Count d_model);
// Both ways, each term and total, as table rows (d_k: the heads' width, 0 for d_model / h).
std::vector<CostRow> scoreFlopRows(Count n_q, Count n_k, Count d_model, Count heads, Count d_k = 0);

// ---------------------------------------------------------------------------------------
// FLOPs of a whole layer's forward pass (all heads, output projection included).

struct ForwardFlops {
    Count queryProjection = 0;   // Q = X_q W^Q:            2 n_q d_model (h d_k)   (0 in FullBilinear)
    Count keyProjection = 0;     // K = X_kv W^K:           2 n_k d_model (g d_k)   (0 in FullBilinear)
    Count valueProjection = 0;   // V = X_kv W^V:           2 n_k d_model (g d_v)
    Count scores = 0;            // Q_i K_i^T, all heads:  h 2 n_q n_k d_k
                                 //   FullBilinear: h (2 n_q d_model^2 + 2 n_q n_k d_model)
    Count scale = 0;             // / sqrt(d_k):            h n_q n_k
    Count softmax = 0;           // max, sub, exp, sum, div: 5 h n_q n_k
    Count weightedValues = 0;    // A_i V_i, all heads:     h 2 n_q n_k d_v
    Count outputProjection = 0;  // Concat(...) W^O:        2 n_q (h d_v) d_model
    Count biases = 0;            // 1 per biased output entry (see biasFlops in the .cpp)
    Count total() const;
};
ForwardFlops attentionForwardFlopBreakdown(const LayerShape& shape, Count n_q, Count n_k);
// Standard multi-head attention (Factored, g = h, no biases): the number a benchmark divides
// by its time for GFLOP/s.
//   2 n_q d^2 + 2 n_k d^2 + 2 n_k d^2            (Q, K, V projections)
// + 2 n_q n_k d + h n_q n_k + 5 h n_q n_k        (scores of all heads, scale, softmax)
// + 2 n_q n_k d + 2 n_q d^2                      (A V of all heads, output projection)
Count attentionForwardFlops(Count n_q, Count n_k, Count d_model, Count heads);
std::vector<CostRow> attentionForwardFlopRows(const LayerShape& shape, Count n_q, Count n_k);

// ---------------------------------------------------------------------------------------
// Everything for one configuration, for the comparison table: the layer's parameter rows,
// the score path per head and per layer (factored vs full W_i, parameters and float32 bytes),
// the FLOPs of one head's scores both ways, and the layer's forward FLOPs. An Error (not a
// table) when the shape or the token counts are invalid.
Expected<std::vector<CostRow>> costTable(const LayerShape& shape, Count n_q, Count n_k);

// Whole-layer parameter totals for every valid h (the divisors of d_model), for a line chart
// of totals against h.
struct HeadCountTotals {
    Count heads = 0;               // h
    Count d_k = 0;                 // d_model / h
    Count standard = 0;            // Factored, g = h (4 d^2 (+ 4 d) for every h)
    Count multiQuery = 0;          // Factored, g = 1
    Count fullBilinear = 0;        // FullBilinear, g = h
    Count unreduced = 0;           // Unreduced, g = h
    Count scorePathFactored = 0;   // per layer, 2 d_model^2 for every h
    Count scorePathFull = 0;       // per layer, h d_model^2
};
// Empty when d_model is outside [1, limits::maxCostDModel].
std::vector<HeadCountTotals> totalsOverHeadCounts(Count d_model, bool withBias);

}  // namespace qkv
