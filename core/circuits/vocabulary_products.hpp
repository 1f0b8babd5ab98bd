#pragma once
// The two large float products of the circuits (head_circuits.hpp), run as plain GEMMs: a
// vocabulary table times a few directions with each column's top K kept as the table streams
// past (the V x m product is never held), and W_U W_E. Row bits do not matter here (no prompt is
// typed on), only speed: OpenBLAS's sgemm and ssyrk called directly where its build is thread-safe
// (Debian's pthread and OpenMP builds), whatever its kernel (AVX2's Haswell included); else the
// project's route (blas_products.hpp: the serial build, its calls taking turns) or Eigen's; on
// threadsFor(work) threads split over the vocabulary.
//
// Symbols: V the vocabulary, d = d_model, m directions.

#include <atomic>
#include <cstdint>
#include <vector>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"

namespace qkv::circuits {

struct ScoredId {
    std::int32_t id = 0;
    float value = 0.0f;
};
// a ranks before b: the larger value, ties the smaller id.
inline bool ranksBefore(const ScoredId& a, const ScoredId& b)
{
    return a.value > b.value || (a.value == b.value && a.id < b.id);
}

// For each column c of `directions` (d x m), the k rows v of `table` (V x d) with the largest
// table[v] . directions[:, c], best first (ranksBefore). k <= V.
std::vector<std::vector<ScoredId>> topRowsPerColumn(const MatrixF& table, const MatrixF& directions, Index k);

// left^T right over the vocabulary (both V x d): d x d. `symmetric` (left and right the same
// table: W_E^T W_E when the readout is tied) computes the upper triangle's panels only and
// mirrors them. Errors: "stopped" when `stop` is set.
// `panels`: the plainProduct route even where OpenBLAS is called directly (for tests).
Expected<MatrixF> vocabularyGram(const MatrixF& left, const MatrixF& right, bool symmetric,
                                 const std::atomic<bool>* stop = nullptr, bool panels = false);

// Whether OpenBLAS is linked in a build that several threads may call at once (then called here
// with one thread per call, as blas_products.hpp sets it).
bool openBlasDirectly();

// out = x w (out += x w with accumulate): x rows x k, w k x n, both row-major (leading dimensions
// their strides), out rows x n. On the caller's thread.
void plainProduct(const float* x, Index rows, Index k, Index ldx, const float* w, Index n, Index ldw, float* out,
                  Index ldo, bool accumulate);

}  // namespace qkv::circuits
