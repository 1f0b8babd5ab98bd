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

}  // namespace qkv
