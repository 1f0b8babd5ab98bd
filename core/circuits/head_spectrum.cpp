#include "core/circuits/circuit_parts.hpp"
#include "core/circuits/head_circuits.hpp"
#include "core/circuits/vocabulary_products.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Eigenvalues>

namespace qkv {

namespace circuits {

MatrixF basisTimesValues(const CircuitBasis& basis, const AttentionWeights& weights)
{
    const MatrixF& product = basis.readoutTimesEmbedding;  // W_U W_E, d x d
    const MatrixF& values = weights.valueProjection;         // W^V, d x (g d_v)
    MatrixF basisValues(product.rows(), values.cols());       // d x (g d_v)
    plainProduct(product.data(), product.rows(), product.cols(), product.outerStride(), values.data(), values.cols(),
                 values.outerStride(), basisValues.data(), basisValues.outerStride(), false);
    return basisValues;
}

HeadSpectrum spectrumOf(const MatrixD& matrix)
{
    HeadSpectrum spectrum;
    if (matrix.size() == 0) {
        spectrum.copyingScore = std::numeric_limits<double>::quiet_NaN();
        return spectrum;
    }
    // Eigenvalues only: the Hessenberg form and the real Schur iteration without the vectors.
    const Eigen::EigenSolver<Eigen::MatrixXd> solver(Eigen::MatrixXd(matrix), false);
    const Eigen::VectorXcd values = solver.eigenvalues();
    spectrum.eigenvalues.assign(values.data(), values.data() + values.size());
    std::sort(spectrum.eigenvalues.begin(), spectrum.eigenvalues.end(),
              [](const std::complex<double>& a, const std::complex<double>& b) {
                  const double ma = std::abs(a), mb = std::abs(b);
                  if (ma != mb) return ma > mb;
                  return a.real() != b.real() ? a.real() > b.real() : a.imag() > b.imag();
              });
    double real = 0.0, magnitude = 0.0;
    for (const std::complex<double>& lambda : spectrum.eigenvalues) {
        real += lambda.real();
        magnitude += std::abs(lambda);
    }
    spectrum.copyingScore = magnitude > 0.0 ? real / magnitude : std::numeric_limits<double>::quiet_NaN();
    return spectrum;
}

HeadSpectrum headSpectrumFrom(const AttentionWeights& weights, const HeadGrouping& grouping, Index head,
                              const MatrixF& basisValues)
{
    const Index d_v = grouping.valueDim();
    // M^h = W_O^h ((W_U W_E) W_V^h): d_v x d (its rows of W^O) times d x d_v.
    const MatrixF middle = weights.outputHead(head, grouping) *
                           basisValues.middleCols(grouping.keyValueHeadOf(head) * d_v, d_v);  // d_v x d_v
    return spectrumOf(middle.cast<double>());
}

}  // namespace circuits

Expected<HeadSpectrum> headSpectrum(const PretrainedModel& model, const CircuitBasis& basis, const CircuitHead& head)
{
    if (std::string reason = noCircuitsReason(model); !reason.empty()) return Error{std::move(reason)};
    Expected<std::shared_ptr<const AttentionWeights>> weights = circuits::layerWeights(model, head.layer);
    if (!weights) return Error{weights.error()};
    Expected<HeadGrouping> grouping = circuits::checkedHead(model, **weights, head);
    if (!grouping) return Error{grouping.error()};
    const Index d_v = grouping->valueDim();
    // Only this head's key/value head's columns of (W_U W_E) W^V.
    const MatrixF& product = basis.readoutTimesEmbedding;
    const MatrixF values = (*weights)->valueHead(head.head, *grouping);  // d x d_v
    MatrixF basisValues = MatrixF::Zero(product.rows(), grouping->valueWidth());
    basisValues.middleCols(grouping->keyValueHeadOf(head.head) * d_v, d_v).noalias() = product * values;
    return circuits::headSpectrumFrom(**weights, *grouping, head.head, basisValues);
}

Expected<MatrixD> copyingScoreGrid(const PretrainedModel& model, const CircuitBasis& basis,
                                   const std::function<bool(Index, Index)>& progress)
{
    if (std::string reason = noCircuitsReason(model); !reason.empty()) return Error{std::move(reason)};
    const Index layers = model.layerCount();
    Index heads = 0;
    for (const CheckpointLayer& layer : model.layersInModelOrder) heads = std::max(heads, layer.headCount);
    MatrixD grid = MatrixD::Constant(layers, heads, std::numeric_limits<double>::quiet_NaN());  // L x h
    for (Index l = 0; l < layers; ++l) {
        if (circuits::selfAttentionLayer(model, l)) {
            Expected<std::shared_ptr<const AttentionWeights>> weights = circuits::layerWeights(model, l);
            if (!weights) return Error{weights.error()};
            const Index h = model.layersInModelOrder[static_cast<std::size_t>(l)].headCount;
            Expected<HeadGrouping> grouping = circuits::checkedHead(model, **weights, {l, 0});
            if (!grouping) return Error{grouping.error()};
            const MatrixF basisValues = circuits::basisTimesValues(basis, **weights);  // d x (g d_v)
            for (Index i = 0; i < h; ++i)
                grid(l, i) = circuits::headSpectrumFrom(**weights, *grouping, i, basisValues).copyingScore;
        }
        if (progress && !progress(l + 1, layers)) return Error{"stopped"};
    }
    return grid;
}

}  // namespace qkv
