#pragma once
// A matrix's transpose as a new matrix, copied in tiles. Checkpoints store nn.Linear weights
// out x in and the app computes x W (in x out): opening a model transposes every weight once.
// Eigen's plain `m.transpose()` copy reads one of the two matrices a column at a time, a cache
// miss per element once a matrix outgrows the cache (measured: the transposes took a third of
// opening Qwen3-0.6B); square tiles keep both sides' lines in cache.

#include "core/common/matrix.hpp"

namespace qkv {

// m^T (m.cols() x m.rows()), exactly the values of m.transpose().
MatrixF transposed(const MatrixF& m);

}  // namespace qkv
