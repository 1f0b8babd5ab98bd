// The trainable model's LayerNorm (layer_norm.hpp), compiled as core/trainable is (core/ops/CMakeLists.txt).
#include "core/ops/layer_norm.hpp"

#include <cmath>

namespace qkv {

template <typename Scalar>
void layerNormForward(MatrixView<Scalar> y, Scalar* mean, Scalar* rstd, ConstMatrixView<Scalar> x,
                      const Scalar* gamma, const Scalar* beta, double epsilon)
{
    using Row = Eigen::Matrix<Scalar, 1, Eigen::Dynamic>;
    const Index d = x.cols();
    const Eigen::Map<const Row> g(gamma, d), b(beta, d);
    for (Index r = 0; r < x.rows(); ++r) {
        const Scalar mu = x.row(r).mean();
        const Scalar variance = (x.row(r).array() - mu).square().mean();  // biased, as PyTorch
        const Scalar s = Scalar(1) / std::sqrt(variance + static_cast<Scalar>(epsilon));
        y.row(r) = ((x.row(r).array() - mu) * s * g.array() + b.array()).matrix();
        mean[r] = mu;
        rstd[r] = s;
    }
}

template <typename Scalar>
void layerNormBackward(MatrixView<Scalar> dx, Scalar* dGamma, Scalar* dBeta, ConstMatrixView<Scalar> dy,
                       ConstMatrixView<Scalar> x, const Scalar* mean, const Scalar* rstd, const Scalar* gamma)
{
    using Row = Eigen::Array<Scalar, 1, Eigen::Dynamic>;
    const Index d = x.cols();
    const Eigen::Map<const Row> g(gamma, d);
    Eigen::Map<Row> dg(dGamma, d), db(dBeta, d);
    for (Index r = 0; r < x.rows(); ++r) {
        // Expressions, evaluated where used: a step allocates nothing.
        const auto xhat = (x.row(r).array() - mean[r]) * rstd[r];  // 1 x d_model
        const auto dxhat = dy.row(r).array() * g;                  // dL/dxhat
        dg += dy.row(r).array() * xhat;
        db += dy.row(r).array();
        const Scalar meanDxhat = dxhat.mean();
        const Scalar meanDxhatXhat = (dxhat * xhat).mean();
        dx.row(r).array() += rstd[r] * (dxhat - meanDxhat - xhat * meanDxhatXhat);
    }
}

template void layerNormForward<float>(MatrixView<float>, float*, float*, ConstMatrixView<float>, const float*,
                                      const float*, double);
template void layerNormForward<double>(MatrixView<double>, double*, double*, ConstMatrixView<double>, const double*,
                                       const double*, double);
template void layerNormBackward<float>(MatrixView<float>, float*, float*, ConstMatrixView<float>,
                                       ConstMatrixView<float>, const float*, const float*, const float*);
template void layerNormBackward<double>(MatrixView<double>, double*, double*, ConstMatrixView<double>,
                                        ConstMatrixView<double>, const double*, const double*, const double*);

}  // namespace qkv
