#include "core/common/finite_range.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/common/parallelism.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace qkv {

void FiniteRange::include(const FiniteRange& other)
{
    smallest = std::min(smallest, other.smallest);
    largest = std::max(largest, other.largest);
    largestMagnitude = std::max(largestMagnitude, other.largestMagnitude);
}

FiniteRange finiteRange(std::span<const float> values)
{
    constexpr std::size_t lanes = 16;
    constexpr float infinity = std::numeric_limits<float>::infinity();
    constexpr float largestFinite = std::numeric_limits<float>::max();
    std::array<float, lanes> smallest, largest, magnitude;
    smallest.fill(infinity);
    largest.fill(-infinity);
    magnitude.fill(0.0f);
    const float* data = values.data();
    const std::size_t n = values.size();
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes) {
        for (std::size_t k = 0; k < lanes; ++k) {
            const float v = data[i + k];
            const float a = std::fabs(v);
            const bool finite = a <= largestFinite;  // false for NaN and +-infinity
            smallest[k] = std::min(smallest[k], finite ? v : infinity);
            largest[k] = std::max(largest[k], finite ? v : -infinity);
            magnitude[k] = std::max(magnitude[k], finite ? a : 0.0f);
        }
    }
    FiniteRange range;
    for (std::size_t k = 0; k < lanes; ++k) range.include({smallest[k], largest[k], magnitude[k]});
    for (; i < n; ++i) {
        const float v = data[i];
        if (std::fabs(v) <= largestFinite) range.include({v, v, std::fabs(v)});
    }
    return range;
}

bool allFinite(std::span<const float> values)
{
    constexpr std::uint32_t exponent = 0x7f800000u;
    const float* data = values.data();
    const auto n = static_cast<std::ptrdiff_t>(values.size());
    // Inside a team already (a reader checking its chunk on each thread): this thread's alone.
#if defined(_OPENMP)
    const int threads = omp_in_parallel() ? 1 : threadsFor(static_cast<double>(n));
#else
    const int threads = 1;
#endif
    std::uint32_t nonFinite = 0;
#pragma omp parallel for simd num_threads(threads) if (threads > 1) reduction(| : nonFinite) schedule(static)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
        std::uint32_t bits;
        std::memcpy(&bits, data + i, sizeof bits);
        nonFinite |= static_cast<std::uint32_t>((bits & exponent) == exponent);
    }
    return nonFinite == 0;
}

std::size_t firstNonFinite(std::span<const float> values)
{
    if (allFinite(values)) return values.size();
    std::size_t i = 0;
    while (std::isfinite(values[i])) ++i;
    return i;
}

}  // namespace qkv
