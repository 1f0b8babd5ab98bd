#include "core/common/random.hpp"

#include <cmath>
#include <numbers>

namespace qkv {

std::uint64_t SplitMix64::next()
{
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double SplitMix64::uniform01()
{
    return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

double SplitMix64::normal()
{
    if (hasSpare_) {
        hasSpare_ = false;
        return spareNormal_;
    }
    // u1 in (0, 1] so the logarithm is finite.
    const double u1 = 1.0 - uniform01();
    const double u2 = uniform01();
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double angle = 2.0 * std::numbers::pi * u2;
    spareNormal_ = radius * std::sin(angle);
    hasSpare_ = true;
    return radius * std::cos(angle);
}

std::uint64_t hashWithSeed(std::string_view bytes, std::uint64_t seed)
{
    std::uint64_t hash = 0xCBF29CE484222325ull;
    for (unsigned char byte : bytes) {
        hash ^= byte;
        hash *= 0x100000001B3ull;
    }
    // Mix the seed in through one SplitMix64 step so nearby seeds give unrelated streams.
    SplitMix64 mixer(hash ^ (seed * 0x9E3779B97F4A7C15ull));
    return mixer.next();
}

}  // namespace qkv
