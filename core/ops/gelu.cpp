#include "core/ops/gelu.hpp"

#include <cmath>
#include <numbers>

#include <unsupported/Eigen/SpecialFunctions>

namespace qkv {

void geluErfInPlace(MatrixF& x)
{
    const float inverseSqrt2 = static_cast<float>(1.0 / std::numbers::sqrt2);
    Eigen::Map<Eigen::ArrayXf> v(x.data(), x.size());
    v = 0.5f * v * (1.0f + (v * inverseSqrt2).erf());
}

void geluTanhInPlace(MatrixF& x)
{
    const float c = static_cast<float>(std::sqrt(2.0 / std::numbers::pi));
    Eigen::Map<Eigen::ArrayXf> v(x.data(), x.size());
    v = 0.5f * v * (1.0f + (c * (v + 0.044715f * v.cube())).tanh());
}

}  // namespace qkv
