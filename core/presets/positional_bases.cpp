#include "core/presets/positional_bases.hpp"

#include <algorithm>

#include "core/common/decompositions.hpp"
#include "core/common/random.hpp"
#include "core/embedding/embeddings.hpp"

namespace qkv {

namespace {

// Right singular vectors of the positions x d_model encoding matrix, by decreasing singular value.
Eigen::MatrixXd encodingDirections(Index d_model, Index positions)
{
    const Eigen::MatrixXd encoding = positionalEncoding(positions, d_model).cast<double>();  // T x d_model
    Eigen::BDCSVD<Eigen::MatrixXd> svd(encoding, Eigen::ComputeThinV);
    return svd.matrixV();  // d_model x min(T, d_model)
}

}  // namespace

MatrixD positionFreeBasis(Index d_model, Index columns)
{
    columns = std::min(columns, d_model);
    const Eigen::MatrixXd directions = encodingDirections(d_model, presetPositionSpan);
    if (d_model <= presetPositionSpan) {
        // All of R^d_model is spanned; the last right singular vectors carry the least position.
        return directions.rightCols(columns);
    }
    // d_model > T: an exact null space exists. Project fixed pseudo-random vectors off the
    // encodings' span and orthonormalise them (seeded, so the basis never changes).
    SplitMix64 stream(0x5eed0fu);
    Eigen::MatrixXd candidates(d_model, columns);
    for (Index c = 0; c < columns; ++c)
        for (Index r = 0; r < d_model; ++r) candidates(r, c) = stream.normal();
    candidates -= directions * (directions.transpose() * candidates);
    Eigen::HouseholderQR<Eigen::MatrixXd> qr(candidates);
    return qr.householderQ() * Eigen::MatrixXd::Identity(d_model, columns);
}

MatrixD positionBasis(Index d_model, Index positions, Index columns)
{
    const Eigen::MatrixXd directions = encodingDirections(d_model, positions);
    return directions.leftCols(std::min(columns, directions.cols()));
}

}  // namespace qkv
