#include "core/attention/rotary.hpp"

#include <cassert>
#include <cmath>

namespace qkv {

Eigen::VectorXd rotaryFrequencies(Index d_k, double base, const RopeScaling& scaling)
{
    constexpr double pi = 3.14159265358979323846;
    Eigen::VectorXd theta(d_k / 2);
    for (Index j = 0; j < d_k / 2; ++j) {
        const double plain = std::pow(base, -2.0 * static_cast<double>(j) / static_cast<double>(d_k));
        double scaled = plain;
        if (scaling.kind == RopeScalingKind::Linear) {
            scaled = plain / scaling.factor;
        } else if (scaling.kind == RopeScalingKind::Llama3) {
            const double wavelength = 2.0 * pi / plain;
            const double context = scaling.originalMaxPositions;
            if (wavelength > context / scaling.lowFreqFactor) {
                scaled = plain / scaling.factor;
            } else if (wavelength >= context / scaling.highFreqFactor) {
                const double s = (context / wavelength - scaling.lowFreqFactor) /
                                 (scaling.highFreqFactor - scaling.lowFreqFactor);
                scaled = (1.0 - s) * plain / scaling.factor + s * plain;
            }
        }
        theta(j) = scaled;
    }
    return theta;
}

void applyRotary(MatrixF& projected, Index d_k, RotaryLayout layout, double base, const RopeScaling& scaling,
                 Index rotaryDims, Index firstPosition)
{
    const Index turned = rotaryDims > 0 ? rotaryDims : d_k;  // the head's rotated components
    if (layout == RotaryLayout::None || turned < 2) return;
    assert(d_k % 2 == 0 && turned % 2 == 0 && turned <= d_k && projected.cols() % d_k == 0);
    const Eigen::VectorXd theta = rotaryFrequencies(turned, base, scaling);
    const Index half = turned / 2;
    const Index blocks = projected.cols() / d_k;
    for (Index row = 0; row < projected.rows(); ++row) {
        const Index pos = firstPosition + row;
        for (Index j = 0; j < half; ++j) {
            // Angles in double: pos * theta reaches 4096 radians, where float loses digits.
            const double angle = static_cast<double>(pos) * theta(j);
            const float c = static_cast<float>(std::cos(angle));
            const float s = static_cast<float>(std::sin(angle));
            const Index first = layout == RotaryLayout::RotateHalf ? j : 2 * j;
            const Index second = layout == RotaryLayout::RotateHalf ? j + half : 2 * j + 1;
            for (Index block = 0; block < blocks; ++block) {
                float& x = projected(row, block * d_k + first);
                float& y = projected(row, block * d_k + second);
                const float rotatedX = x * c - y * s;
                const float rotatedY = x * s + y * c;
                x = rotatedX;
                y = rotatedY;
            }
        }
    }
}

}  // namespace qkv
