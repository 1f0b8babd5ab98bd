#include "core/ops/rms_norm.hpp"

#include <cassert>
#include <cmath>

namespace qkv {

template <typename Scalar>
void rmsNormForward(MatrixView<Scalar> y, ConstMatrixView<Scalar> x, const Scalar* gamma, double epsilon)
{
    assert(y.rows() == x.rows() && y.cols() == x.cols() && epsilon > 0.0);
    const Index d = x.cols();
    for (Index r = 0; r < x.rows(); ++r) {
        const auto row = x.row(r).template cast<double>();  // read at c before y(r, c) is written: in place is safe
        const double inverseRms = 1.0 / std::sqrt(row.squaredNorm() / static_cast<double>(d) + epsilon);  // 1 / RMS(x)
        for (Index c = 0; c < d; ++c)
            y(r, c) = static_cast<Scalar>(row(c) * inverseRms * static_cast<double>(gamma[c]));
    }
}

void rmsNormSegments(MatrixF& projected, const RowVectorF& gamma, float epsilon)
{
    const Index width = gamma.size();
    for (Index row = 0; row < projected.rows(); ++row)
        for (Index first = 0; first + width <= projected.cols(); first += width) {
            auto x = projected.row(row).segment(first, width);
            const double meanSquare = x.cast<double>().squaredNorm() / static_cast<double>(width);
            const auto inverse = static_cast<float>(1.0 / std::sqrt(meanSquare + static_cast<double>(epsilon)));
            x = (x * inverse).cwiseProduct(gamma);
        }
}

template void rmsNormForward<float>(MatrixView<float>, ConstMatrixView<float>, const float*, double);
template void rmsNormForward<double>(MatrixView<double>, ConstMatrixView<double>, const double*, double);

}  // namespace qkv
