#include "core/pretrained/rms_norm.hpp"

#include <cassert>
#include <cmath>

namespace qkv {

template <typename Scalar>
void rmsNormForward(MatrixView<Scalar> y, ConstMatrixView<Scalar> x, const Scalar* gamma, double epsilon)
{
    assert(y.rows() == x.rows() && y.cols() == x.cols() && epsilon > 0.0);
    using Row = Eigen::Matrix<Scalar, 1, Eigen::Dynamic>;
    const Index d = x.cols();
    const Eigen::Map<const Row> g(gamma, d);
    for (Index r = 0; r < x.rows(); ++r) {
        const double meanSquare = x.row(r).template cast<double>().squaredNorm() / static_cast<double>(d);
        const Scalar s = static_cast<Scalar>(1.0 / std::sqrt(meanSquare + epsilon));  // 1 / RMS(x)
        y.row(r) = (x.row(r).array() * s * g.array()).matrix();
    }
}

template void rmsNormForward<float>(MatrixView<float>, ConstMatrixView<float>, const float*, double);
template void rmsNormForward<double>(MatrixView<double>, ConstMatrixView<double>, const double*, double);

}  // namespace qkv
