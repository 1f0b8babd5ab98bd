#include "core/weights/attention_weights.hpp"

#include <cmath>
#include <string_view>

#include "core/common/parallelism.hpp"
#include "core/common/random.hpp"
#include "core/common/shape_text.hpp"

namespace qkv {

HeadGrouping AttentionWeights::grouping(Index headCount) const
{
    HeadGrouping g;
    g.headCount = headCount;
    g.d_k = headCount > 0 ? queryWidth() / headCount : 0;
    g.keyValueHeadCount = g.d_k > 0 ? keyValueWidth() / g.d_k : 0;
    const Index valueDim = g.keyValueHeadCount > 0 ? valueProjection.cols() / g.keyValueHeadCount : 0;
    g.d_v = valueDim == g.d_k ? 0 : valueDim;
    return g;
}

std::string AttentionWeights::shapeProblem(Index headCount) const
{
    const Index d = d_model();
    const Index width = queryWidth();  // h d_k
    if (d < 1 || width < 1) return "W^Q is empty.";
    if (keyProjection.rows() != d || valueProjection.rows() != d)
        return "W^K is " + shapeText(keyProjection) + " and W^V " + shapeText(valueProjection) +
               "; both must have d_model = " + std::to_string(d) + " rows.";
    if (headCount < 1 || width % headCount != 0)
        return "h = " + std::to_string(headCount) + " does not divide the " + std::to_string(width) +
               " columns of W^Q (h d_k).";
    const HeadGrouping g = grouping(headCount);
    if (keyValueWidth() < 1 || keyValueWidth() % g.d_k != 0 || headCount % g.keyValueHeadCount != 0)
        return "W^K has " + std::to_string(keyValueWidth()) + " columns: with h = " + std::to_string(headCount) +
               " (d_k = " + std::to_string(g.d_k) + ") that must be g d_k for a number of key/value heads g dividing h.";
    if (valueProjection.cols() < 1 || valueProjection.cols() % g.keyValueHeadCount != 0)
        return "W^V has " + std::to_string(valueProjection.cols()) + " columns: that must be g d_v for g = " +
               std::to_string(g.keyValueHeadCount) + " key/value heads.";
    if (outputProjection.rows() != g.concatWidth() || outputProjection.cols() != d)
        return "W^O is " + shapeText(outputProjection) + "; it must be (h d_v) x d_model (" +
               std::to_string(g.concatWidth()) + " x " + std::to_string(d) + ", as W^V is d_model x (g d_v)).";
    const auto biasFits = [](const std::optional<RowVectorF>& b, Index size) { return b && b->size() == size; };
    if (hasBias() && !(biasFits(queryBias, width) && biasFits(keyBias, keyValueWidth()) &&
                       biasFits(valueBias, g.valueWidth()) && biasFits(outputBias, d)))
        return "The biases b^Q, b^K, b^V and b^O must all be present, with as many entries as their matrix has "
               "columns.";
    if (!hasBias() && (keyBias || valueBias || outputBias))
        return "The biases b^Q, b^K, b^V and b^O must all be present or all absent.";
    if (queryNorm.has_value() != keyNorm.has_value())
        return "The norms of q and k (q_norm, k_norm) must both be present or both absent.";
    const auto normFits = [&](const std::optional<RowVectorF>& n, Index whole) {
        return n->size() == g.d_k || n->size() == whole;
    };
    if (queryNorm && (!normFits(queryNorm, width) || !normFits(keyNorm, keyValueWidth())))
        return "q_norm has " + std::to_string(queryNorm->size()) + " and k_norm " + std::to_string(keyNorm->size()) +
               " entries: each must have d_k = " + std::to_string(g.d_k) + " (one head's, shared) or its whole " +
               "projection's (" + std::to_string(width) + " and " + std::to_string(keyValueWidth()) + ").";
    if (queryNorm && !(std::isfinite(queryKeyNormEpsilon) && queryKeyNormEpsilon > 0.0f))
        return "The q and k norms' epsilon must be a finite number above 0.";
    return {};
}

std::string_view initName(WeightInit init) { return nameOf(kWeightInitNames, init); }
bool parseInit(std::string_view name, WeightInit& init) { return parseName(kWeightInitNames, name, init); }

namespace {

// Fills a sized matrix from the stream of its name (initialiseProjection).
void fillProjection(MatrixF& matrix, std::uint64_t seed, WeightInit init, std::string_view name)
{
    const Index rows = matrix.rows(), columns = matrix.cols();
    SplitMix64 stream(hashWithSeed(name, seed));
    // Glorot & Bengio (2010): a = sqrt(6 / (fan_in + fan_out)).
    const double xavierBound = std::sqrt(6.0 / static_cast<double>(rows + columns));
    const double normalDeviation = 1.0 / std::sqrt(static_cast<double>(rows));
    for (Index row = 0; row < rows; ++row) {
        for (Index column = 0; column < columns; ++column) {
            const double value = init == WeightInit::XavierUniform ? stream.uniform(-xavierBound, xavierBound)
                                                                   : normalDeviation * stream.normal();
            matrix(row, column) = static_cast<float>(value);
        }
    }
}

}  // namespace

// Each matrix draws from its own stream, keyed by its name, so adding biases or changing the
// initialisation of one matrix never shifts the numbers of another.
MatrixF initialiseProjection(Index rows, Index columns, std::uint64_t seed, WeightInit init, std::string_view name)
{
    MatrixF matrix(rows, columns);
    fillProjection(matrix, seed, init, name);
    return matrix;
}

namespace {

// W^Q d_model x queryWidth, W^K and W^V d_model x keyValueWidth, W^O queryWidth x d_model.
AttentionWeights initialiseWithWidths(Index d_model, Index queryWidth, Index keyValueWidth, std::uint64_t seed,
                                      WeightInit init, bool withBias)
{
    AttentionWeights weights;
    // Sized here, so an allocation failure is thrown outside the team below.
    weights.queryProjection.resize(d_model, queryWidth);
    weights.keyProjection.resize(d_model, keyValueWidth);
    weights.valueProjection.resize(d_model, keyValueWidth);
    weights.outputProjection.resize(queryWidth, d_model);
    // The four streams are independent: drawn side by side, the numbers are the same.
    MatrixF* const matrices[] = {&weights.queryProjection, &weights.keyProjection, &weights.valueProjection,
                                 &weights.outputProjection};
    const char* const names[] = {"W_Q", "W_K", "W_V", "W_O"};
    // About 40 operations a draw (a logarithm, a square root, a sine and a cosine a normal pair).
    const double draws = static_cast<double>(d_model) * static_cast<double>(2 * queryWidth + 2 * keyValueWidth);
    const int threads = threadsFor(40.0 * draws);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (threads > 1)
    for (int i = 0; i < 4; ++i) fillProjection(*matrices[i], seed, init, names[i]);
    if (withBias) {
        weights.queryBias = RowVectorF::Zero(queryWidth);
        weights.keyBias = RowVectorF::Zero(keyValueWidth);
        weights.valueBias = RowVectorF::Zero(keyValueWidth);
        weights.outputBias = RowVectorF::Zero(d_model);
    }
    return weights;
}

}  // namespace

AttentionWeights initialiseWeights(Index d_model, const HeadGrouping& heads, std::uint64_t seed, WeightInit init,
                                   bool withBias)
{
    return initialiseWithWidths(d_model, heads.queryWidth(), heads.keyValueWidth(), seed, init, withBias);
}

AttentionWeights initialiseWeights(Index d_model, Index keyValueWidth, std::uint64_t seed, WeightInit init,
                                   bool withBias)
{
    return initialiseWithWidths(d_model, d_model, keyValueWidth, seed, init, withBias);
}

AttentionWeights scaledWeights(const AttentionWeights& weights, const ProjectionScales& scales)
{
    if (scales == ProjectionScales{}) return weights;
    AttentionWeights scaled = weights;
    scaled.queryProjection *= scales.query;
    scaled.keyProjection *= scales.key;
    scaled.valueProjection *= scales.value;
    scaled.outputProjection *= scales.output;
    if (scaled.queryBias) *scaled.queryBias *= scales.query;
    if (scaled.keyBias) *scaled.keyBias *= scales.key;
    if (scaled.valueBias) *scaled.valueBias *= scales.value;
    if (scaled.outputBias) *scaled.outputBias *= scales.output;
    return scaled;
}

bool allFinite(const AttentionWeights& weights)
{
    const auto finiteBias = [](const std::optional<RowVectorF>& bias) { return !bias || bias->allFinite(); };
    return weights.queryProjection.allFinite() && weights.keyProjection.allFinite() &&
           weights.valueProjection.allFinite() && weights.outputProjection.allFinite() &&
           finiteBias(weights.queryBias) && finiteBias(weights.keyBias) && finiteBias(weights.valueBias) &&
           finiteBias(weights.outputBias);
}

}  // namespace qkv
