#include "core/embedding/first_layer_input.hpp"

#include <cmath>
#include <string>

#include "core/common/shape_text.hpp"

namespace qkv {

namespace {

Status checkShapes(const EmbeddingTable& tokenTable, const EmbeddingTable& positionTable,
                   const RowVectorF* extraRow, const LayerNormParameters& norm)
{
    const Index d = tokenTable.cols();
    if (d < 1 || tokenTable.rows() < 1)
        return Error{"the token embeddings are empty (" + shapeText(tokenTable.rows(), d) + ")"};
    if (positionTable.cols() != d)
        return Error{"the position embeddings are " + shapeText(positionTable.rows(), positionTable.cols()) +
                     " but the token embeddings have d_model = " + std::to_string(d)};
    if (extraRow && extraRow->cols() != d)
        return Error{"the token type embedding has " + std::to_string(extraRow->cols()) +
                     " entries but d_model = " + std::to_string(d)};
    if (norm.gamma.cols() != d || norm.beta.cols() != d)
        return Error{"the LayerNorm weight and bias have " + std::to_string(norm.gamma.cols()) + " and " +
                     std::to_string(norm.beta.cols()) + " entries but d_model = " + std::to_string(d)};
    if (!std::isfinite(norm.epsilon) || norm.epsilon <= 0)
        return Error{"the LayerNorm epsilon must be a positive number (it is " + std::to_string(norm.epsilon) + ")"};
    return {};
}

Status checkIds(std::span<const std::int32_t> ids, Index tokenRows, Index positionRows, Index firstPosition)
{
    const auto n = static_cast<Index>(ids.size());
    if (n == 0) return Error{"the sentence has no tokens"};
    for (Index t = 0; t < n; ++t) {
        const std::int32_t id = ids[static_cast<std::size_t>(t)];
        if (id < 0 || id >= tokenRows)
            return Error{"token " + std::to_string(t) + " has id " + std::to_string(id) +
                         ", but the token embeddings have " + std::to_string(tokenRows) + " rows"};
    }
    const Index available = std::max<Index>(0, positionRows - std::max<Index>(0, firstPosition));
    if (firstPosition < 0 || n > available)
        return Error{"the sentence has " + std::to_string(n) + " tokens; this model's positions go up to " +
                     std::to_string(available)};
    return {};
}

}  // namespace

Expected<MatrixF> normalizedEmbeddingSum(std::span<const std::int32_t> ids, const EmbeddingTable& tokenTable,
                                         const EmbeddingTable& positionTable, Index firstPosition,
                                         const RowVectorF* extraRow, const LayerNormParameters& norm)
{
    if (Status s = checkShapes(tokenTable, positionTable, extraRow, norm); !s) return Error{s.error()};
    if (Status s = checkIds(ids, tokenTable.rows(), positionTable.rows(), firstPosition); !s) return Error{s.error()};

    const auto n = static_cast<Index>(ids.size());
    MatrixD sum(n, tokenTable.cols());  // n x d_model: token + position (+ extra)
    for (Index t = 0; t < n; ++t) {
        sum.row(t) = tokenTable.row(ids[static_cast<std::size_t>(t)]).cast<double>() +
                     positionTable.row(firstPosition + t).cast<double>();
        if (extraRow) sum.row(t) += extraRow->cast<double>();
    }
    MatrixF x = layerNormRows(sum, norm);  // n x d_model
    for (Index t = 0; t < n; ++t)
        if (!x.row(t).allFinite())
            return Error{"the input of token " + std::to_string(t) + " is not finite: its embedding rows or the "
                         "LayerNorm parameters hold NaN or infinity"};
    return x;
}

Expected<MatrixF> bertModelInput(std::span<const std::int32_t> ids, const EmbeddingTable& wordEmbeddings,
                                 const EmbeddingTable& positionEmbeddings,
                                 const EmbeddingTable& tokenTypeEmbeddings, const LayerNormParameters& embeddingNorm)
{
    if (tokenTypeEmbeddings.rows() < 1) return Error{"the token type embeddings are empty"};
    // One sentence: every token has type 0 (segment A).
    const RowVectorF typeRow = tokenTypeEmbeddings.row(0);
    return normalizedEmbeddingSum(ids, wordEmbeddings, positionEmbeddings, 0, &typeRow, embeddingNorm);
}

Expected<MatrixF> gpt2ModelInput(std::span<const std::int32_t> ids, const EmbeddingTable& tokenEmbeddings,
                                 const EmbeddingTable& positionEmbeddings, const LayerNormParameters& ln1)
{
    return normalizedEmbeddingSum(ids, tokenEmbeddings, positionEmbeddings, 0, nullptr, ln1);
}

}  // namespace qkv
