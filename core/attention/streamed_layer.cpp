#include "core/attention/streamed_layer.hpp"

#include <cmath>
#include <string>

namespace qkv {

namespace {

// ||f_i(x_j)|| = ||V_kv(i)(j) W^O_i|| for every key and head (n_k x h), in float products and
// double norms as value_norms.cpp computes them.
MatrixD transformedValueNorms(const AttentionResult& attention, const AttentionWeights& weights)
{
    MatrixD norms(attention.keyCount(), attention.headCount());  // n_k x h
    for (Index head = 0; head < attention.headCount(); ++head) {
        const MatrixF transformed = attention.valueHead(head) * weights.outputHead(head, attention.grouping);  // n_k x d_model
        norms.col(head) = transformed.cast<double>().rowwise().norm();
    }
    return norms;
}

HeadScoresInput headInput(const AttentionResult& attention, const MatrixF& query, const MatrixF& key)
{
    return {query, key, attention.scoreScale, attention.scoreSoftCap, attention.mask};
}

}  // namespace

Expected<StreamedLayer> streamedMultiHeadAttention(const MatrixF& queryInput, const MatrixF& keyValueInput,
                                                   const AttentionWeights& weights, const HeadGrouping& grouping,
                                                   const AttentionOptions& options, const StreamedLayerOptions& streamed)
{
    StreamedLayer layer;
    AttentionResult& attention = layer.attention;
    attention = projectAttentionInputs(queryInput, keyValueInput, weights, grouping, options);
    const Index n_q = attention.queryCount(), h = attention.headCount();
    attention.headOutputs.resize(n_q, grouping.concatWidth());  // n_q x h d_v
    if (streamed.valueNorms) layer.transformedNorms = transformedValueNorms(attention, weights);
    layer.heads.reserve(static_cast<std::size_t>(h));
    for (Index head = 0; head < h; ++head) {
        // Contiguous copies: the tiles' products read them row by row.
        const MatrixF query = attention.queryHead(head), key = attention.keyHead(head);  // n x d_k
        const MatrixF value = attention.valueHead(head);                                 // n_k x d_v
        const RowVectorF keyScales =
            streamed.valueNorms ? RowVectorF(layer.transformedNorms.col(head).transpose().cast<float>()) : RowVectorF();
        HeadScoresInput input = headInput(attention, query, key);
        input.value = &value;
        if (streamed.valueNorms) input.keyScales = &keyScales;
        Expected<StreamedAttention> one =
            streamHeadAttention(input, streamed.pooledRows, streamed.pooledColumns, streamed.control);
        if (!one) return Error{one.error()};
        attention.headOutputs.middleCols(head * grouping.valueDim(), grouping.valueDim()) = one->output;
        one->output = MatrixF();
        layer.heads.push_back(std::move(*one));
    }
    // The mask is the same for every head: a row without a distribution has none in any.
    attention.fullyMaskedRows.assign(static_cast<std::size_t>(n_q), false);
    if (h > 0)
        for (Index q = 0; q < n_q; ++q)
            attention.fullyMaskedRows[static_cast<std::size_t>(q)] = std::isnan(layer.heads.back().rows.maxWeight(q));
    projectAttentionOutput(attention, weights);
    if (!attention.output.allFinite())
        return Error{"The numbers overflowed the float range (values beyond 3.4e38): lower the weight scales or the "
                     "size of the loaded weights or embeddings."};
    return layer;
}

Expected<MatrixF> headAttentionRegion(const AttentionResult& attention, Index head, Index firstRow, Index endRow,
                                      Index firstColumn, Index endColumn)
{
    if (head < 0 || head >= attention.headCount())
        return Error{"head " + std::to_string(head + 1) + " does not exist (the layer has " +
                     std::to_string(attention.headCount()) + ")"};
    // Contiguous copies (n x d_k): the tiles' products read them row by row.
    const MatrixF allQueries = attention.queryHead(head), key = attention.keyHead(head);
    return attentionRegion(headInput(attention, allQueries, key), firstRow, endRow, firstColumn, endColumn);
}

}  // namespace qkv
