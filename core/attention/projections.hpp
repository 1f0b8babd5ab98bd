#pragma once
// The projections of the forward pass (Q = X_q W^Q, K = X_kv W^K, V = X_kv W^V, and
// Output = Concat W^O) run as one team: each product is cut into row blocks (or, on the packed
// kernel, column blocks), and the threads share all the blocks of all the products.
//
// Why not Eigen's own threads: Eigen parallelises one product at a time and joins its team
// after each, so three projections pay three joins and split small products too finely. One
// team over the blocks of all three measured 1.14 -> 0.75 ms at (n, d_model) = (128, 512) and
// 6.6 -> 6.2 ms at (512, 768) on the 2-core VM (docs/benchmarks.md).

#include <initializer_list>

#include "core/common/matrix.hpp"

namespace qkv {

struct Projection {
    const MatrixF& input;   // n x d_in
    const MatrixF& weight;  // d_in x d_out
    MatrixF& output;        // n x d_out, resized here
};

// output = input * weight for each projection. Uses at most threadsFor(work) threads (the app
// allows one; the export and benchmarks every core), and one thread below a size where a team
// costs more than it saves. A row of the output depends only on its row of the input, with the
// same bits whatever the thread count or the other rows (core/common/row_products.hpp).
void projectTogether(std::initializer_list<Projection> projections);

}  // namespace qkv
