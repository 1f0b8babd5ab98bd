#include "core/weights/head_edits.hpp"

#include <cmath>
#include <string>
#include <type_traits>

#include "core/common/random.hpp"

namespace qkv {

namespace {

// The block of `matrix` for `head`: writable for AttentionWeights, read-only for const.
template <class Weights>
auto block(Weights& w, const HeadGrouping& g, Index head, HeadMatrix matrix)
{
    using Matrix = std::conditional_t<std::is_const_v<Weights>, const MatrixF, MatrixF>;
    switch (matrix) {
    case HeadMatrix::Query: return Eigen::Block<Matrix>(w.queryProjection, 0, head * g.d_k, w.d_model(), g.d_k);
    case HeadMatrix::Key:
        return Eigen::Block<Matrix>(w.keyProjection, 0, g.keyValueHeadOf(head) * g.d_k, w.d_model(), g.d_k);
    case HeadMatrix::Value:
        return Eigen::Block<Matrix>(w.valueProjection, 0, g.keyValueHeadOf(head) * g.valueDim(), w.d_model(),
                                    g.valueDim());
    case HeadMatrix::Output: break;
    }
    return Eigen::Block<Matrix>(w.outputProjection, head * g.valueDim(), 0, g.valueDim(), w.d_model());
}

// The bias segment a block's edits carry along (b^O has none per head).
std::optional<Eigen::Block<RowVectorF>> biasBlock(AttentionWeights& w, const HeadGrouping& g, Index head,
                                                  HeadMatrix matrix)
{
    if (!w.hasBias()) return std::nullopt;
    switch (matrix) {
    case HeadMatrix::Query: return Eigen::Block<RowVectorF>(*w.queryBias, 0, head * g.d_k, 1, g.d_k);
    case HeadMatrix::Key: return Eigen::Block<RowVectorF>(*w.keyBias, 0, g.keyValueHeadOf(head) * g.d_k, 1, g.d_k);
    case HeadMatrix::Value:
        return Eigen::Block<RowVectorF>(*w.valueBias, 0, g.keyValueHeadOf(head) * g.valueDim(), 1, g.valueDim());
    case HeadMatrix::Output: break;
    }
    return std::nullopt;
}

constexpr HeadMatrix kAll[] = {HeadMatrix::Query, HeadMatrix::Key, HeadMatrix::Value, HeadMatrix::Output};

}  // namespace

std::string_view headMatrixName(HeadMatrix matrix)
{
    switch (matrix) {
    case HeadMatrix::Query: return "W_i^Q";
    case HeadMatrix::Key: return "W_i^K";
    case HeadMatrix::Value: return "W_i^V";
    case HeadMatrix::Output: return "W_i^O";
    }
    return "W_i^Q";
}

Index headMatrixRows(HeadMatrix matrix, const HeadGrouping& g, Index d_model)
{
    return matrix == HeadMatrix::Output ? g.valueDim() : d_model;
}

Index headMatrixColumns(HeadMatrix matrix, const HeadGrouping& g, Index d_model)
{
    switch (matrix) {
    case HeadMatrix::Output: return d_model;
    case HeadMatrix::Value: return g.valueDim();
    default: return g.d_k;
    }
}

MatrixF headBlock(const AttentionWeights& weights, const HeadGrouping& g, Index head, HeadMatrix matrix)
{
    return block(weights, g, head, matrix);
}

Expected<AttentionWeights> setHeadEntry(const AttentionWeights& weights, const HeadGrouping& g, Index head,
                                        HeadMatrix matrix, Index row, Index column, float value)
{
    const Index rows = headMatrixRows(matrix, g, weights.d_model());
    const Index columns = headMatrixColumns(matrix, g, weights.d_model());
    if (row < 0 || row >= rows || column < 0 || column >= columns)
        return Error{std::string(headMatrixName(matrix)) + " is " + std::to_string(rows) + " x " + std::to_string(columns) +
                     "; there is no entry (" + std::to_string(row) + ", " + std::to_string(column) + ")"};
    if (!std::isfinite(value)) return Error{"the value must be a finite number"};
    AttentionWeights edited = weights;
    block(edited, g, head, matrix)(row, column) = value;
    return edited;
}

Expected<AttentionWeights> scaleHeadBlock(const AttentionWeights& weights, const HeadGrouping& g, Index head,
                                          HeadMatrix matrix, float factor)
{
    if (!std::isfinite(factor)) return Error{"the factor must be a finite number"};
    AttentionWeights edited = weights;
    block(edited, g, head, matrix) *= factor;
    if (auto bias = biasBlock(edited, g, head, matrix)) *bias *= factor;
    if (!allFinite(edited)) return Error{"scaling by " + std::to_string(factor) + " overflows the float range"};
    return edited;
}

AttentionWeights swapQueryAndKey(const AttentionWeights& weights, const HeadGrouping& g, Index head)
{
    AttentionWeights edited = weights;
    const MatrixF query = block(edited, g, head, HeadMatrix::Query);
    block(edited, g, head, HeadMatrix::Query) = block(edited, g, head, HeadMatrix::Key);
    block(edited, g, head, HeadMatrix::Key) = query;
    auto queryBias = biasBlock(edited, g, head, HeadMatrix::Query);
    auto keyBias = biasBlock(edited, g, head, HeadMatrix::Key);
    if (queryBias && keyBias) {
        const RowVectorF saved = *queryBias;
        *queryBias = *keyBias;
        *keyBias = saved;
    }
    return edited;
}

AttentionWeights rerandomiseHead(const AttentionWeights& weights, const HeadGrouping& g, Index head,
                                 std::uint64_t seed, WeightInit init)
{
    AttentionWeights edited = weights;
    const double d = static_cast<double>(weights.d_model());
    // The same distribution initialiseWeights uses for a d_model x d_model projection (Xavier
    // with fan_in + fan_out = 2 d_model, or N(0, 1/d_model)), one stream per block and head.
    const double bound = std::sqrt(6.0 / (2.0 * d));
    const double deviation = 1.0 / std::sqrt(d);
    for (const HeadMatrix matrix : kAll) {
        SplitMix64 stream(hashWithSeed(std::string(headMatrixName(matrix)) + "/head " + std::to_string(head + 1), seed));
        auto target = block(edited, g, head, matrix);
        for (Index r = 0; r < target.rows(); ++r)
            for (Index c = 0; c < target.cols(); ++c)
                target(r, c) = static_cast<float>(init == WeightInit::XavierUniform ? stream.uniform(-bound, bound)
                                                                                    : deviation * stream.normal());
    }
    return edited;
}

AttentionWeights copyHead(const AttentionWeights& weights, const HeadGrouping& g, Index from, Index to)
{
    AttentionWeights edited = weights;
    for (const HeadMatrix matrix : kAll) {
        const MatrixF source = block(edited, g, from, matrix);
        block(edited, g, to, matrix) = source;
        auto sourceBias = biasBlock(edited, g, from, matrix);
        if (sourceBias) {
            const RowVectorF saved = *sourceBias;
            *biasBlock(edited, g, to, matrix) = saved;
        }
    }
    return edited;
}

}  // namespace qkv
