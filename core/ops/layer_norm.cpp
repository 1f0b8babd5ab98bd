#include "core/ops/layer_norm.hpp"

#include <cmath>

namespace qkv {

MatrixF layerNormRows(const MatrixD& rows, const LayerNormParameters& norm)
{
    const Index d = rows.cols();
    MatrixF out(rows.rows(), d);  // n x d_model
    for (Index r = 0; r < rows.rows(); ++r) {
        const auto x = rows.row(r);
        const double mean = x.sum() / static_cast<double>(d);
        const double variance = (x.array() - mean).square().sum() / static_cast<double>(d);  // biased
        const double inverseDeviation = 1.0 / std::sqrt(variance + norm.epsilon);
        for (Index c = 0; c < d; ++c)
            out(r, c) = static_cast<float>((x(c) - mean) * inverseDeviation * static_cast<double>(norm.gamma(c)) +
                                           static_cast<double>(norm.beta(c)));
    }
    return out;
}

}  // namespace qkv
