#pragma once
// Matrix types shared by every part of the core.
//
// Convention (docs/architecture.md, "Numerical conventions"): row vectors. A sentence is X (n x d_model), one token per
// row. Matrices are row-major so that a row (a token, a query) is contiguous and so that the
// memory layout matches NumPy's C order in .npy and safetensors files.

#include <Eigen/Core>

namespace qkv {

// Attention runs in float, as models do.
using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVectorF = Eigen::Matrix<float, 1, Eigen::Dynamic>;
// Spectra and rank analysis run in double.
using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using VectorD = Eigen::Matrix<double, Eigen::Dynamic, 1>;

using Index = Eigen::Index;

}  // namespace qkv
