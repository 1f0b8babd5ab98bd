#pragma once
// Row-major matrices and views of their blocks, the argument types of the templated ops
// (float runs and trains, double checks gradients): whole matrices, their middleRows and
// middleCols, maps of a flat array.

#include <Eigen/Core>

#include "core/common/matrix.hpp"

namespace qkv {

template <typename Scalar>
using RowMajorMatrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename Scalar>
using MatrixView = Eigen::Ref<RowMajorMatrix<Scalar>>;
template <typename Scalar>
using ConstMatrixView = Eigen::Ref<const RowMajorMatrix<Scalar>>;

}  // namespace qkv
