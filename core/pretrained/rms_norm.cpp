#include "core/pretrained/rms_norm.hpp"

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

template void rmsNormForward<float>(MatrixView<float>, ConstMatrixView<float>, const float*, double);
template void rmsNormForward<double>(MatrixView<double>, ConstMatrixView<double>, const double*, double);

}  // namespace qkv
