// Cost model: one explicit formula per tensor. Symbols as in cost_model.hpp:
//   d_model, h (query heads), g (key/value heads), d_k = d_v (per-head width), n_q, n_k.
// Every count goes through the saturating helpers below, so no input can overflow.

#include "core/cost/cost_model.hpp"

#include <cstdlib>
#include <limits>

#include "core/config/validation.hpp"

namespace qkv {

namespace {

constexpr Count kMaxCount = std::numeric_limits<Count>::max();
constexpr Count kMinCount = std::numeric_limits<Count>::min();
constexpr Count kBytesPerFloat = 4;  // float32 weights

// a * b, saturating at the int64 limits instead of overflowing.
Count mul(Count a, Count b)
{
    Count result = 0;
    if (__builtin_mul_overflow(a, b, &result)) {
        return (a < 0) != (b < 0) ? kMinCount : kMaxCount;
    }
    return result;
}

template <class... Rest>
Count mul(Count a, Count b, Rest... rest)
{
    if constexpr (sizeof...(rest) == 0) {
        return mul(a, b);
    } else {
        return mul(mul(a, b), rest...);
    }
}

// a + b, saturating.
Count add(Count a, Count b)
{
    Count result = 0;
    if (__builtin_add_overflow(a, b, &result)) {
        return a < 0 ? kMinCount : kMaxCount;
    }
    return result;
}

template <class... Rest>
Count add(Count a, Count b, Count c, Rest... rest)
{
    return add(add(a, b), c, rest...);
}

std::string str(Count value) { return std::to_string(value); }

// "symbolic = numeric", e.g. "d_model * d_model = 512 * 512".
std::string formula(const std::string& symbolic, const std::string& numeric)
{
    return symbolic + " = " + numeric;
}

bool isMultiHead(const LayerShape& s) { return s.keyValueHeads == s.heads; }

std::string joined(const std::vector<Count>& values)
{
    std::string out;
    for (const Count v : values) {
        out += (out.empty() ? "" : ", ") + str(v);
    }
    return out;
}

// FLOPs of adding biases: 1 per biased output entry.
//   Factored, Unreduced: b^Q n_q h d_k + b^K n_k g d_k + b^V n_k g d_v + b^O n_q d_model
//   FullBilinear: key-side term u_i . y for each key (2 n_k d_model) added to every score
//                 (n_q n_k), per head; then b^V and b^O as above.
Count biasFlops(const LayerShape& s, Count n_q, Count n_k)
{
    if (!s.withBias) {
        return 0;
    }
    const Count d = s.d_model, h = s.heads, g = s.keyValueHeads, dk = headDim(s);
    const Count valueAndOutput = add(mul(n_k, g, dk), mul(n_q, d));
    if (s.layout == HeadLayout::FullBilinear) {
        return add(mul(h, add(mul(2, n_k, d), mul(n_q, n_k))), valueAndOutput);
    }
    return add(mul(n_q, h, dk), mul(n_k, g, dk), valueAndOutput);
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Shapes

Status validateLayerShape(const LayerShape& s)
{
    if (s.d_model < 1 || s.d_model > limits::maxCostDModel) {
        return Error{"d_model must be between 1 and " + str(limits::maxCostDModel) + " (got " +
                     str(s.d_model) + ")"};
    }
    if (s.heads < 1 || s.heads > limits::maxCostHeads) {
        return Error{"the number of heads h must be between 1 and " + str(limits::maxCostHeads) +
                     " (got " + str(s.heads) + ")"};
    }
    if (s.headWidth < 0 || s.headWidth > limits::maxCostDModel) {
        return Error{"d_k must be between 1 and " + str(limits::maxCostDModel) + " (got " + str(s.headWidth) + ")"};
    }
    if (s.layout != HeadLayout::Unreduced && s.headWidth == 0 && s.d_model % s.heads != 0) {
        return Error{"h = " + str(s.heads) + " does not divide d_model = " + str(s.d_model) +
                     "; the nearest valid h is " + str(nearestValidHeadCount(s.d_model, s.heads))};
    }
    if (s.keyValueHeads < 1 || s.keyValueHeads > s.heads) {
        return Error{"the number of key/value heads g must be between 1 and h = " +
                     str(s.heads) + " (got " + str(s.keyValueHeads) + ")"};
    }
    if (s.heads % s.keyValueHeads != 0) {
        return Error{"g = " + str(s.keyValueHeads) + " key/value heads does not divide h = " +
                     str(s.heads) + "; valid g: " + joined(divisorsOf(s.heads))};
    }
    return {};
}

Status validateTokenCounts(Count n_q, Count n_k)
{
    if (n_q < 1 || n_q > limits::maxCostTokens) {
        return Error{"the number of queries n_q must be between 1 and " +
                     str(limits::maxCostTokens) + " (got " + str(n_q) + ")"};
    }
    if (n_k < 1 || n_k > limits::maxCostTokens) {
        return Error{"the number of keys n_k must be between 1 and " + str(limits::maxCostTokens) +
                     " (got " + str(n_k) + ")"};
    }
    return {};
}

AttentionKind attentionKind(const LayerShape& s)
{
    if (s.keyValueHeads == s.heads) {
        return AttentionKind::MultiHead;
    }
    return s.keyValueHeads == 1 ? AttentionKind::MultiQuery : AttentionKind::GroupedQuery;
}

const char* toString(HeadLayout layout)
{
    switch (layout) {
    case HeadLayout::Factored: return "factored heads";
    case HeadLayout::FullBilinear: return "full W_i per head";
    case HeadLayout::Unreduced: return "unreduced heads";
    }
    return "";
}

const char* toString(AttentionKind kind)
{
    switch (kind) {
    case AttentionKind::MultiHead: return "multi-head";
    case AttentionKind::GroupedQuery: return "grouped-query";
    case AttentionKind::MultiQuery: return "multi-query";
    }
    return "";
}

Count headDim(const LayerShape& s)
{
    if (s.layout == HeadLayout::Unreduced) {
        return s.d_model;  // d_k = d_v = d_model
    }
    if (s.headWidth > 0) return s.headWidth;         // the layer's own d_k (a model's head_dim)
    return s.heads >= 1 ? s.d_model / s.heads : 0;  // d_k = d_v = d_model / h
}

std::vector<Count> divisorsOf(Count n)
{
    std::vector<Count> small, large;
    for (Count i = 1; n >= 1 && i <= n / i; ++i) {
        if (n % i == 0) {
            small.push_back(i);
            if (i != n / i) {
                large.push_back(n / i);
            }
        }
    }
    small.insert(small.end(), large.rbegin(), large.rend());
    return small;
}

// ---------------------------------------------------------------------------------------
// Parameters, one formula per tensor

Count queryWeightParameters(const LayerShape& s)
{
    if (s.layout == HeadLayout::FullBilinear) {
        return 0;  // replaced by W_1..W_h
    }
    return mul(s.d_model, s.heads, headDim(s));  // W^Q: d_model x (h d_k)
}

Count keyWeightParameters(const LayerShape& s)
{
    if (s.layout == HeadLayout::FullBilinear) {
        return 0;  // replaced by W_1..W_h
    }
    return mul(s.d_model, s.keyValueHeads, headDim(s));  // W^K: d_model x (g d_k)
}

Count valueWeightParameters(const LayerShape& s)
{
    return mul(s.d_model, s.keyValueHeads, headDim(s));  // W^V: d_model x (g d_v)
}

Count outputWeightParameters(const LayerShape& s)
{
    return mul(s.heads, headDim(s), s.d_model);  // W^O: (h d_v) x d_model
}

Count bilinearWeightParameters(const LayerShape& s)
{
    if (s.layout != HeadLayout::FullBilinear) {
        return 0;
    }
    return mul(s.heads, s.d_model, s.d_model);  // W_1..W_h: h x (d_model x d_model)
}

Count queryBiasParameters(const LayerShape& s)
{
    if (!s.withBias || s.layout == HeadLayout::FullBilinear) {
        return 0;
    }
    return mul(s.heads, headDim(s));  // b^Q: h d_k
}

Count keyBiasParameters(const LayerShape& s)
{
    if (!s.withBias || s.layout == HeadLayout::FullBilinear) {
        return 0;
    }
    return mul(s.keyValueHeads, headDim(s));  // b^K: g d_k
}

Count valueBiasParameters(const LayerShape& s)
{
    return s.withBias ? mul(s.keyValueHeads, headDim(s)) : 0;  // b^V: g d_v
}

Count outputBiasParameters(const LayerShape& s)
{
    return s.withBias ? s.d_model : 0;  // b^O: d_model
}

Count bilinearBiasParameters(const LayerShape& s)
{
    if (!s.withBias || s.layout != HeadLayout::FullBilinear) {
        return 0;
    }
    return mul(s.heads, s.d_model);  // u_1..u_h: h x d_model (key-side bias term)
}

Count ParameterBreakdown::weights() const
{
    return add(queryWeight, keyWeight, valueWeight, outputWeight, bilinearWeight);
}

Count ParameterBreakdown::biases() const
{
    return add(queryBias, keyBias, valueBias, outputBias, bilinearBias);
}

Count ParameterBreakdown::total() const { return add(weights(), biases()); }

ParameterBreakdown layerParameters(const LayerShape& s)
{
    ParameterBreakdown p;
    p.queryWeight = queryWeightParameters(s);
    p.keyWeight = keyWeightParameters(s);
    p.valueWeight = valueWeightParameters(s);
    p.outputWeight = outputWeightParameters(s);
    p.bilinearWeight = bilinearWeightParameters(s);
    p.queryBias = queryBiasParameters(s);
    p.keyBias = keyBiasParameters(s);
    p.valueBias = valueBiasParameters(s);
    p.outputBias = outputBiasParameters(s);
    p.bilinearBias = bilinearBiasParameters(s);
    return p;
}

Count layerParameterCount(const LayerShape& s) { return layerParameters(s).total(); }

std::vector<CostRow> layerParameterRows(const LayerShape& s)
{
    const std::string d = str(s.d_model), h = str(s.heads), g = str(s.keyValueHeads);
    const std::string dk = str(headDim(s));
    const bool mha = isMultiHead(s);
    const ParameterBreakdown p = layerParameters(s);
    std::vector<CostRow> rows;

    // Widths of the fused projections: h d_k (= d_model for the paper's d_k = d_model / h) and g d_k.
    const bool paperWidth = s.layout != HeadLayout::Unreduced && s.heads * headDim(s) == s.d_model;
    std::string qWidthSym, qWidthNum, kvWidthSym, kvWidthNum;
    if (s.layout == HeadLayout::Unreduced) {
        qWidthSym = "(h * d_model)";
        qWidthNum = "(" + h + " * " + d + ")";
        kvWidthSym = "(g * d_model)";
        kvWidthNum = "(" + g + " * " + d + ")";
    } else if (paperWidth) {
        qWidthSym = "d_model";
        qWidthNum = d;
        kvWidthSym = mha ? "d_model" : "(g * d_k)";
        kvWidthNum = mha ? d : "(" + g + " * " + dk + ")";
    } else {  // heads of their own width
        qWidthSym = "(h * d_k)";
        qWidthNum = "(" + h + " * " + dk + ")";
        kvWidthSym = "(g * d_k)";
        kvWidthNum = "(" + g + " * " + dk + ")";
    }
    auto strip = [](std::string text) {  // "(g * d_k)" -> "g * d_k" when it stands alone
        return text.front() == '(' ? text.substr(1, text.size() - 2) : text;
    };

    if (s.layout == HeadLayout::FullBilinear) {
        rows.push_back({"W_1..W_h (full W_i per head)",
                        formula("h * d_model * d_model", h + " * " + d + " * " + d), p.bilinearWeight});
    } else {
        rows.push_back({"W^Q", formula("d_model * " + qWidthSym, d + " * " + qWidthNum), p.queryWeight});
        rows.push_back({"W^K", formula("d_model * " + kvWidthSym, d + " * " + kvWidthNum), p.keyWeight});
    }
    rows.push_back({"W^V", formula("d_model * " + kvWidthSym, d + " * " + kvWidthNum), p.valueWeight});
    rows.push_back({"W^O", formula(qWidthSym + " * d_model", qWidthNum + " * " + d), p.outputWeight});
    if (s.withBias) {
        if (s.layout == HeadLayout::FullBilinear) {
            rows.push_back({"u_1..u_h (key-side bias of each W_i)", formula("h * d_model", h + " * " + d),
                            p.bilinearBias});
        } else {
            rows.push_back({"b^Q", formula(strip(qWidthSym), strip(qWidthNum)), p.queryBias});
            rows.push_back({"b^K", formula(strip(kvWidthSym), strip(kvWidthNum)), p.keyBias});
        }
        rows.push_back({"b^V", formula(strip(kvWidthSym), strip(kvWidthNum)), p.valueBias});
        rows.push_back({"b^O", formula("d_model", d), p.outputBias});
    }

    // The total as a closed form.
    std::string totalSym, totalNum;
    switch (s.layout) {
    case HeadLayout::Factored:
        if (!paperWidth) {
            totalSym = "2 * d_model * h * d_k + 2 * d_model * g * d_k";
            totalNum = "2 * " + d + " * " + h + " * " + dk + " + 2 * " + d + " * " + g + " * " + dk;
            if (s.withBias) {
                totalSym += " + h * d_k + 2 * g * d_k + d_model";
                totalNum += " + " + h + " * " + dk + " + 2 * " + g + " * " + dk + " + " + d;
            }
        } else if (mha) {
            totalSym = "4 * d_model^2";
            totalNum = "4 * " + d + "^2";
            if (s.withBias) {
                totalSym += " + 4 * d_model";
                totalNum += " + 4 * " + d;
            }
        } else {
            totalSym = "2 * d_model^2 + 2 * d_model * g * d_k";
            totalNum = "2 * " + d + "^2 + 2 * " + d + " * " + g + " * " + dk;
            if (s.withBias) {
                totalSym += " + 2 * d_model + 2 * g * d_k";
                totalNum += " + 2 * " + d + " + 2 * " + g + " * " + dk;
            }
        }
        break;
    case HeadLayout::FullBilinear:
        // W_1..W_h, W^O (h d_k x d_model: d_model^2 at the paper's width), W^V.
        totalSym = paperWidth ? "h * d_model^2 + d_model^2 + d_model * g * d_k"
                              : "h * d_model^2 + h * d_k * d_model + d_model * g * d_k";
        totalNum = h + " * " + d + "^2 + " + (paperWidth ? d + "^2" : h + " * " + dk + " * " + d) + " + " + d +
                   " * " + g + " * " + dk;
        if (s.withBias) {
            totalSym += " + h * d_model + g * d_k + d_model";
            totalNum += " + " + h + " * " + d + " + " + g + " * " + dk + " + " + d;
        }
        break;
    case HeadLayout::Unreduced:
        totalSym = "2 * (h + g) * d_model^2";
        totalNum = "2 * (" + h + " + " + g + ") * " + d + "^2";
        if (s.withBias) {
            totalSym += " + (h + 2 * g + 1) * d_model";
            totalNum += " + (" + h + " + 2 * " + g + " + 1) * " + d;
        }
        break;
    }
    rows.push_back({"total", formula(totalSym, totalNum), p.total()});
    return rows;
}

// ---------------------------------------------------------------------------------------
// Score path

ScorePathCost scorePathCost(const LayerShape& s)
{
    ScorePathCost c;
    const Count d = s.d_model, h = s.heads, g = s.keyValueHeads, dk = headDim(s);
    switch (s.layout) {
    case HeadLayout::Factored:
    case HeadLayout::Unreduced:
        c.parametersPerHead = mul(2, d, dk);            // W_i^Q and W_i^K: 2 d_model d_k
        c.parametersPerLayer = mul(d, add(h, g), dk);   // W^Q, W^K: d_model (h + g) d_k
        break;
    case HeadLayout::FullBilinear:
        c.parametersPerHead = mul(d, d);                // W_i: d_model^2
        c.parametersPerLayer = mul(h, d, d);            // h d_model^2
        break;
    }
    c.bytesPerHead = mul(kBytesPerFloat, c.parametersPerHead);
    c.bytesPerLayer = mul(kBytesPerFloat, c.parametersPerLayer);
    return c;
}

ScorePathComparison compareScorePath(Count d_model, Count heads, Count keyValueHeads, Count d_k)
{
    LayerShape s{d_model, heads, keyValueHeads, false, HeadLayout::Factored, d_k};
    ScorePathComparison out;
    out.factored = scorePathCost(s);
    s.layout = HeadLayout::FullBilinear;
    out.full = scorePathCost(s);
    return out;
}

// ---------------------------------------------------------------------------------------
// FLOPs (a multiply-add is 2 FLOPs)

Count ScoreFlops::total() const { return add(queryProjection, keyProjection, product); }

ScoreFlops scoreFlopsFactored(Count n_q, Count n_k, Count d_model, Count d_k)
{
    ScoreFlops f;
    f.queryProjection = mul(2, n_q, d_model, d_k);  // Q_i = X_q W_i^Q: (n_q x d_model)(d_model x d_k)
    f.keyProjection = mul(2, n_k, d_model, d_k);    // K_i = X_kv W_i^K: (n_k x d_model)(d_model x d_k)
    f.product = mul(2, n_q, n_k, d_k);              // Q_i K_i^T: (n_q x d_k)(d_k x n_k)
    return f;
}

ScoreFlops scoreFlopsFullBilinear(Count n_q, Count n_k, Count d_model)
{
    ScoreFlops f;
    f.queryProjection = mul(2, n_q, d_model, d_model);  // X_q W_i: (n_q x d_model)(d_model x d_model)
    f.keyProjection = 0;                                // X_kv enters unprojected
    f.product = mul(2, n_q, n_k, d_model);              // (X_q W_i) X_kv^T: (n_q x d_model)(d_model x n_k)
    return f;
}

std::vector<CostRow> scoreFlopRows(Count n_q, Count n_k, Count d_model, Count heads, Count headWidth)
{
    const Count d_k = headWidth > 0 ? headWidth : heads >= 1 ? d_model / heads : 0;
    const ScoreFlops factored = scoreFlopsFactored(n_q, n_k, d_model, d_k);
    const ScoreFlops full = scoreFlopsFullBilinear(n_q, n_k, d_model);
    const std::string q = str(n_q), k = str(n_k), d = str(d_model), dk = str(d_k);
    return {
        {"score FLOPs per head, factored: X_q W_i^Q", formula("2 * n_q * d_model * d_k", "2 * " + q + " * " + d + " * " + dk), factored.queryProjection},
        {"score FLOPs per head, factored: X_kv W_i^K", formula("2 * n_k * d_model * d_k", "2 * " + k + " * " + d + " * " + dk), factored.keyProjection},
        {"score FLOPs per head, factored: Q_i K_i^T", formula("2 * n_q * n_k * d_k", "2 * " + q + " * " + k + " * " + dk), factored.product},
        {"score FLOPs per head, factored: total",
         formula("2 * d_k * (n_q * d_model + n_k * d_model + n_q * n_k)",
                 "2 * " + dk + " * (" + q + " * " + d + " + " + k + " * " + d + " + " + q + " * " + k + ")"),
         factored.total()},
        {"score FLOPs per head, full W_i: X_q W_i", formula("2 * n_q * d_model * d_model", "2 * " + q + " * " + d + " * " + d), full.queryProjection},
        {"score FLOPs per head, full W_i: (X_q W_i) X_kv^T", formula("2 * n_q * n_k * d_model", "2 * " + q + " * " + k + " * " + d), full.product},
        {"score FLOPs per head, full W_i: total",
         formula("2 * n_q * d_model * (d_model + n_k)", "2 * " + q + " * " + d + " * (" + d + " + " + k + ")"),
         full.total()},
    };
}

Count ForwardFlops::total() const
{
    return add(add(queryProjection, keyProjection, valueProjection, scores, scale),
               add(softmax, weightedValues, outputProjection, biases));
}

ForwardFlops attentionForwardFlopBreakdown(const LayerShape& s, Count n_q, Count n_k)
{
    const Count d = s.d_model, h = s.heads, g = s.keyValueHeads, dk = headDim(s);
    ForwardFlops f;
    if (s.layout == HeadLayout::FullBilinear) {
        // Per head: (X_q W_i) X_kv^T, no Q or K projection.
        f.scores = mul(h, scoreFlopsFullBilinear(n_q, n_k, d).total());
    } else {
        f.queryProjection = mul(2, n_q, d, mul(h, dk));  // X_q W^Q: (n_q x d_model)(d_model x h d_k)
        f.keyProjection = mul(2, n_k, d, mul(g, dk));    // X_kv W^K: (n_k x d_model)(d_model x g d_k)
        f.scores = mul(h, 2, n_q, n_k, dk);              // Q_i K_i^T for h heads
    }
    f.valueProjection = mul(2, n_k, d, mul(g, dk));       // X_kv W^V: (n_k x d_model)(d_model x g d_v)
    f.scale = mul(h, n_q, n_k);                           // scores / sqrt(d_k)
    f.softmax = mul(5, h, n_q, n_k);                      // max, subtract, exp, sum, divide
    f.weightedValues = mul(h, 2, n_q, n_k, dk);           // A_i V_i: (n_q x n_k)(n_k x d_v)
    f.outputProjection = mul(2, n_q, mul(h, dk), d);      // Concat W^O: (n_q x h d_v)(h d_v x d_model)
    f.biases = biasFlops(s, n_q, n_k);
    return f;
}

Count attentionForwardFlops(Count n_q, Count n_k, Count d_model, Count heads)
{
    return attentionForwardFlopBreakdown(LayerShape{d_model, heads, heads, false, HeadLayout::Factored},
                                         n_q, n_k)
        .total();
}

std::vector<CostRow> attentionForwardFlopRows(const LayerShape& s, Count n_q, Count n_k)
{
    const ForwardFlops f = attentionForwardFlopBreakdown(s, n_q, n_k);
    const std::string q = str(n_q), k = str(n_k), d = str(s.d_model), h = str(s.heads),
                      g = str(s.keyValueHeads), dk = str(headDim(s));
    std::vector<CostRow> rows;
    if (s.layout == HeadLayout::FullBilinear) {
        rows.push_back({"forward: scores (X_q W_i) X_kv^T, all heads",
                        formula("h * (2 * n_q * d_model^2 + 2 * n_q * n_k * d_model)",
                                h + " * (2 * " + q + " * " + d + "^2 + 2 * " + q + " * " + k + " * " + d + ")"),
                        f.scores});
    } else {
        rows.push_back({"forward: Q = X_q W^Q", formula("2 * n_q * d_model * h * d_k", "2 * " + q + " * " + d + " * " + h + " * " + dk), f.queryProjection});
        rows.push_back({"forward: K = X_kv W^K", formula("2 * n_k * d_model * g * d_k", "2 * " + k + " * " + d + " * " + g + " * " + dk), f.keyProjection});
    }
    rows.push_back({"forward: V = X_kv W^V", formula("2 * n_k * d_model * g * d_v", "2 * " + k + " * " + d + " * " + g + " * " + dk), f.valueProjection});
    if (s.layout != HeadLayout::FullBilinear) {
        rows.push_back({"forward: scores Q_i K_i^T, all heads", formula("h * 2 * n_q * n_k * d_k", h + " * 2 * " + q + " * " + k + " * " + dk), f.scores});
    }
    rows.push_back({"forward: scale by 1/sqrt(d_k)", formula("h * n_q * n_k", h + " * " + q + " * " + k), f.scale});
    rows.push_back({"forward: softmax (max, subtract, exp, sum, divide)", formula("5 * h * n_q * n_k", "5 * " + h + " * " + q + " * " + k), f.softmax});
    rows.push_back({"forward: A_i V_i, all heads", formula("h * 2 * n_q * n_k * d_v", h + " * 2 * " + q + " * " + k + " * " + dk), f.weightedValues});
    rows.push_back({"forward: output Concat(head_i) W^O", formula("2 * n_q * h * d_v * d_model", "2 * " + q + " * " + h + " * " + dk + " * " + d), f.outputProjection});
    if (s.withBias) {
        if (s.layout == HeadLayout::FullBilinear) {
            rows.push_back({"forward: biases (u_i . x_kv added to scores, b^V, b^O)",
                            formula("h * (2 * n_k * d_model + n_q * n_k) + n_k * g * d_v + n_q * d_model",
                                    h + " * (2 * " + k + " * " + d + " + " + q + " * " + k + ") + " + k + " * " + g + " * " + dk + " + " + q + " * " + d),
                            f.biases});
        } else {
            rows.push_back({"forward: biases b^Q, b^K, b^V, b^O",
                            formula("n_q * h * d_k + 2 * n_k * g * d_k + n_q * d_model",
                                    q + " * " + h + " * " + dk + " + 2 * " + k + " * " + g + " * " + dk + " + " + q + " * " + d),
                            f.biases});
        }
    }
    rows.push_back({"forward: total", "sum of the forward rows above", f.total()});
    return rows;
}

// ---------------------------------------------------------------------------------------
// The table and the chart data

Expected<std::vector<CostRow>> costTable(const LayerShape& s, Count n_q, Count n_k)
{
    if (const Status status = validateLayerShape(s); !status) {
        return Error{status.error()};
    }
    if (const Status status = validateTokenCounts(n_q, n_k); !status) {
        return Error{status.error()};
    }
    std::vector<CostRow> rows;
    for (CostRow& row : layerParameterRows(s)) {
        row.name = "parameters: " + row.name;
        rows.push_back(std::move(row));
    }

    const std::string d = str(s.d_model), h = str(s.heads), g = str(s.keyValueHeads);
    // Score path of this layout's heads (thin factors unless FullBilinear) vs full W_i.
    LayerShape thin = s;
    if (thin.layout == HeadLayout::FullBilinear) {
        thin.layout = HeadLayout::Factored;
    }
    LayerShape full = s;
    full.layout = HeadLayout::FullBilinear;
    const ScorePathCost thinCost = scorePathCost(thin);
    const ScorePathCost fullCost = scorePathCost(full);
    const std::string thinDk = str(headDim(thin));
    rows.push_back({"score path per head, W_i^Q and W_i^K", formula("2 * d_model * d_k", "2 * " + d + " * " + thinDk), thinCost.parametersPerHead});
    rows.push_back({"score path per head, full W_i", formula("d_model * d_model", d + " * " + d), fullCost.parametersPerHead});
    rows.push_back({"score path per layer, W^Q and W^K", formula("d_model * (h + g) * d_k", d + " * (" + h + " + " + g + ") * " + thinDk), thinCost.parametersPerLayer});
    rows.push_back({"score path per layer, full W_1..W_h", formula("h * d_model * d_model", h + " * " + d + " * " + d), fullCost.parametersPerLayer});
    rows.push_back({"score path bytes per layer (float32), W^Q and W^K", formula("4 * d_model * (h + g) * d_k", "4 * " + d + " * (" + h + " + " + g + ") * " + thinDk), thinCost.bytesPerLayer});
    rows.push_back({"score path bytes per layer (float32), full W_1..W_h", formula("4 * h * d_model * d_model", "4 * " + h + " * " + d + " * " + d), fullCost.bytesPerLayer});

    // FLOPs of one head's scores, both ways, with this layout's d_k for the thin factors.
    const ScoreFlops factored = scoreFlopsFactored(n_q, n_k, s.d_model, headDim(thin));
    const ScoreFlops dense = scoreFlopsFullBilinear(n_q, n_k, s.d_model);
    const std::string q = str(n_q), k = str(n_k);
    rows.push_back({"score FLOPs per head, factored (X_q W_i^Q)(X_kv W_i^K)^T",
                    formula("2 * n_q * d_model * d_k + 2 * n_k * d_model * d_k + 2 * n_q * n_k * d_k",
                            "2 * " + q + " * " + d + " * " + thinDk + " + 2 * " + k + " * " + d + " * " + thinDk +
                                " + 2 * " + q + " * " + k + " * " + thinDk),
                    factored.total()});
    rows.push_back({"score FLOPs per head, full (X_q W_i) X_kv^T",
                    formula("2 * n_q * d_model^2 + 2 * n_q * n_k * d_model",
                            "2 * " + q + " * " + d + "^2 + 2 * " + q + " * " + k + " * " + d),
                    dense.total()});
    for (CostRow& row : attentionForwardFlopRows(s, n_q, n_k)) {
        rows.push_back(std::move(row));
    }
    return rows;
}

std::vector<HeadCountTotals> totalsOverHeadCounts(Count d_model, bool withBias)
{
    std::vector<HeadCountTotals> out;
    if (d_model < 1 || d_model > limits::maxCostDModel) {
        return out;
    }
    for (const Count h : divisorsOf(d_model)) {
        HeadCountTotals t;
        t.heads = h;
        t.d_k = d_model / h;
        t.standard = layerParameterCount({d_model, h, h, withBias, HeadLayout::Factored});
        t.multiQuery = layerParameterCount({d_model, h, 1, withBias, HeadLayout::Factored});
        t.fullBilinear = layerParameterCount({d_model, h, h, withBias, HeadLayout::FullBilinear});
        t.unreduced = layerParameterCount({d_model, h, h, withBias, HeadLayout::Unreduced});
        const ScorePathComparison score = compareScorePath(d_model, h, h);
        t.scorePathFactored = score.factored.parametersPerLayer;
        t.scorePathFull = score.full.parametersPerLayer;
        out.push_back(t);
    }
    return out;
}

}  // namespace qkv
