#pragma once
// The value-weighted norms of a result (core/analysis/value_norms.hpp), computed once per
// Result: the heads grid, its tooltips, its exports and the clipboard all read the same copy.
// They cost ~2 n_k d_model^2 flops, so no repaint or option change recomputes them.
//
// The cache is keyed by the Result itself (a weak pointer: a result freed and another made at
// the same address is never mistaken for it) and keeps the few most recent results' norms, so
// it holds no memory once those results are gone. Thread-safe: a figure made on the work pool
// asks it too.

#include <memory>

#include "core/analysis/value_norms.hpp"
#include "core/common/expected.hpp"
#include "core/pipeline/compute.hpp"

namespace qkv::ui {

// N_i and N for `result` (Result::attention and the weights as used, *Result::weights): from
// the cache, else computed now on the calling thread and kept. An error (a non-finite V, ...)
// is kept too, with core's message. Null only for a null result.
std::shared_ptr<const qkv::Expected<qkv::ValueNorms>> valueNormsOf(const std::shared_ptr<const qkv::Result>& result);

// True when valueNormsOf(result) would return at once.
bool hasValueNorms(const std::shared_ptr<const qkv::Result>& result);

// Multiply-adds of computing them (work_placement.hpp): ||f_i(x_j)|| for every (head, key),
// n_k d_model^2, then per key a Gram matrix of the heads switched on, n_k h^2 d_model / 2, and
// per (q, j) its quadratic form, n_q n_k h^2 / 2.
double valueNormsMultiplyAdds(const qkv::Result& result);

}  // namespace qkv::ui
