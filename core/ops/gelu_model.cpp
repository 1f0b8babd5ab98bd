// The trainable model's GELU (gelu.hpp), compiled as core/trainable is (core/ops/CMakeLists.txt).
#include "core/ops/gelu.hpp"

#include <cmath>
#include <numbers>

namespace qkv {

template <typename Scalar>
void geluForward(MatrixView<Scalar> hidden, ConstMatrixView<Scalar> preActivation)
{
    const Scalar inverseSqrt2 = static_cast<Scalar>(1.0 / std::numbers::sqrt2);
    for (Index r = 0; r < hidden.rows(); ++r)
        for (Index c = 0; c < hidden.cols(); ++c) {
            const Scalar a = preActivation(r, c);
            hidden(r, c) = Scalar(0.5) * a * (Scalar(1) + std::erf(a * inverseSqrt2));
        }
}

template <typename Scalar>
void geluBackward(MatrixView<Scalar> dPreActivation, ConstMatrixView<Scalar> dHidden,
                  ConstMatrixView<Scalar> preActivation)
{
    const Scalar inverseSqrt2 = static_cast<Scalar>(1.0 / std::numbers::sqrt2);
    const Scalar inverseSqrt2Pi = static_cast<Scalar>(1.0 / std::sqrt(2.0 * std::numbers::pi));
    for (Index r = 0; r < dHidden.rows(); ++r)
        for (Index c = 0; c < dHidden.cols(); ++c) {
            const Scalar a = preActivation(r, c);
            const Scalar cdf = Scalar(0.5) * (Scalar(1) + std::erf(a * inverseSqrt2));  // Phi(a)
            const Scalar pdf = inverseSqrt2Pi * std::exp(Scalar(-0.5) * a * a);         // phi(a)
            dPreActivation(r, c) = dHidden(r, c) * (cdf + a * pdf);
        }
}

template void geluForward<float>(MatrixView<float>, ConstMatrixView<float>);
template void geluForward<double>(MatrixView<double>, ConstMatrixView<double>);
template void geluBackward<float>(MatrixView<float>, ConstMatrixView<float>, ConstMatrixView<float>);
template void geluBackward<double>(MatrixView<double>, ConstMatrixView<double>, ConstMatrixView<double>);

}  // namespace qkv
