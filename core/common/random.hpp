#pragma once
// Deterministic random numbers, identical bits on every platform and standard library.
//
// std::normal_distribution and friends are implementation-defined, so "same seed, same bits"
// (docs/architecture.md, "Numerical conventions") needs our own generator and transforms: SplitMix64 for the stream,
// the top 24 bits for a float in [0, 1), Box-Muller for normals.

#include <cstdint>
#include <string_view>

namespace qkv {

class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next();
    // Uniform in [0, 1) with 53 random bits.
    double uniform01();
    // Uniform in [low, high).
    double uniform(double low, double high) { return low + (high - low) * uniform01(); }
    // Standard normal (Box-Muller; both values of a pair are used).
    double normal();

private:
    std::uint64_t state_;
    double spareNormal_ = 0.0;
    bool hasSpare_ = false;
};

// 64-bit FNV-1a of a byte string, mixed with a seed; used to give each token text its own
// stream. Stable across runs and platforms.
std::uint64_t hashWithSeed(std::string_view bytes, std::uint64_t seed);

}  // namespace qkv
