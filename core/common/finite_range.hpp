#pragma once
// The smallest, largest and largest-magnitude finite values of a block of floats (NaN and
// +-infinity skipped: masked scores are -infinity). A colour scale needs these for every frame
// over h x n_q x n_k values (3 M at n = 512, h = 12), so the scan keeps independent lanes with
// no branch, which the compiler vectorises: ~1 ms there instead of ~10 ms for a scalar loop.

#include <cstddef>
#include <limits>
#include <span>

namespace qkv {

struct FiniteRange {
    float smallest = std::numeric_limits<float>::infinity();
    float largest = -std::numeric_limits<float>::infinity();
    float largestMagnitude = 0.0f;

    // False when no value was finite.
    bool any() const { return smallest <= largest; }
    // Widens this range by `other` (for several blocks).
    void include(const FiniteRange& other);
};

FiniteRange finiteRange(std::span<const float> values);

// Whether every value is finite: no float with its exponent bits all ones. Without a branch per
// value, so the compiler vectorises it (Eigen's allFinite() and std::isfinite with an early exit
// test one value at a time: 100 ms for a BERT-base word table, 30522 x 768, against ~5 ms); split
// between the threads when large (threadsFor: a block of an 8B model, 0.9 GB, is checked each time
// a run reaches it).
bool allFinite(std::span<const float> values);

// The position of the first value that is not finite; values.size() when every value is.
std::size_t firstNonFinite(std::span<const float> values);

}  // namespace qkv
