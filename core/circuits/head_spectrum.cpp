#include "core/circuits/circuit_parts.hpp"
#include "core/circuits/head_circuits.hpp"
#include "core/circuits/vocabulary_products.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Eigenvalues>

#include "core/common/parallelism.hpp"

#if defined(QKV_HAVE_OPENBLAS)
// LAPACK's general eigenvalue driver, as OpenBLAS ships it (declared here as blas_products.cpp
// declares cblas: the header's path differs between Debian's builds).
extern "C" {
void dgeev_(const char* jobvl, const char* jobvr, const int* n, double* a, const int* lda, double* wr, double* wi,
            double* vl, const int* ldvl, double* vr, const int* ldvr, double* work, const int* lwork, int* info);
}
#endif

namespace qkv {

namespace circuits {

namespace {

#if defined(QKV_HAVE_OPENBLAS)
// LAPACK's dgeev (blocked Hessenberg reduction, multishift QR with early deflation) takes a
// 128 x 128 matrix's eigenvalues ~3x faster than Eigen's EigenSolver here (6 ms against 18 on
// the busy machine), which a Qwen3-0.6B's 448 heads feel. Only the pthread and OpenMP builds:
// the serial one shares its buffers between threads (blas_products.cpp), and a head's spectrum
// may be asked for beside another thread's products. Empty when it does not run.
std::vector<std::complex<double>> lapackEigenvalues(const MatrixD& matrix)
{
    if (!openBlasDirectly() || matrix.rows() > 100000) return {};
    const int n = static_cast<int>(matrix.rows()), one = 1;
    Eigen::MatrixXd a = matrix;  // column-major, overwritten
    std::vector<double> real(static_cast<std::size_t>(n)), imaginary(static_cast<std::size_t>(n));
    double none = 0.0, size = 0.0;
    int info = 0, query = -1;
    dgeev_("N", "N", &n, a.data(), &n, real.data(), imaginary.data(), &none, &one, &none, &one, &size, &query, &info);
    if (info != 0) return {};
    int lwork = std::max(static_cast<int>(size), 3 * n);
    std::vector<double> work(static_cast<std::size_t>(lwork));
    dgeev_("N", "N", &n, a.data(), &n, real.data(), imaginary.data(), &none, &one, &none, &one, work.data(), &lwork,
           &info);
    if (info != 0) return {};
    std::vector<std::complex<double>> values;
    for (std::size_t i = 0; i < real.size(); ++i) values.emplace_back(real[i], imaginary[i]);
    return values;
}
#else
std::vector<std::complex<double>> lapackEigenvalues(const MatrixD&) { return {}; }
#endif

}  // namespace

std::string basisProblem(const PretrainedModel& model, const CircuitBasis& basis)
{
    const Index d = tokenTable(model).cols();
    const MatrixF& product = basis.readoutTimesEmbedding;
    if (product.rows() == d && product.cols() == d) return {};
    return "the circuit basis W_U W_E is " + std::to_string(product.rows()) + " x " + std::to_string(product.cols()) +
           ", not this model's " + std::to_string(d) + " x " + std::to_string(d) + " (circuitBasis of this model)";
}

MatrixF basisTimesValues(const CircuitBasis& basis, const AttentionWeights& weights)
{
    const MatrixF& product = basis.readoutTimesEmbedding;  // W_U W_E, d x d
    const MatrixF& values = weights.valueProjection;       // W^V, d x (g d_v)
    MatrixF basisValues(product.rows(), values.cols());    // d x (g d_v)
    // Row blocks of W_U W_E on the export's threads.
    constexpr Index block = 128;
    const Index blocks = (product.rows() + block - 1) / block;
    const int threads = std::min<int>(threadsFor(static_cast<double>(product.rows()) * product.cols() * values.cols()),
                                      static_cast<int>(blocks));
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
    for (Index b = 0; b < blocks; ++b) {
        const Index first = b * block, rows = std::min(block, product.rows() - first);
        plainProduct(product.data() + first * product.outerStride(), rows, product.cols(), product.outerStride(),
                     values.data(), values.cols(), values.outerStride(),
                     basisValues.data() + first * basisValues.outerStride(), basisValues.outerStride(), false);
    }
    return basisValues;
}

HeadSpectrum spectrumOf(const MatrixD& matrix)
{
    HeadSpectrum spectrum;
    if (matrix.size() == 0) {
        spectrum.copyingScore = std::numeric_limits<double>::quiet_NaN();
        return spectrum;
    }
    // Eigenvalues only: the Hessenberg form and the real Schur iteration without the vectors
    // (LAPACK's where it runs, else Eigen's).
    spectrum.eigenvalues = lapackEigenvalues(matrix);
    if (spectrum.eigenvalues.empty()) {
        const Eigen::EigenSolver<Eigen::MatrixXd> solver(Eigen::MatrixXd(matrix), false);
        const Eigen::VectorXcd values = solver.eigenvalues();
        spectrum.eigenvalues.assign(values.data(), values.data() + values.size());
    }
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

std::vector<HeadSpectrum> layerSpectra(const AttentionWeights& weights, const HeadGrouping& grouping,
                                       const MatrixF& basisValues)
{
    std::vector<HeadSpectrum> spectra(static_cast<std::size_t>(grouping.headCount));
    const double d_v = static_cast<double>(grouping.valueDim());
    // Per head: the d_v x d x d_v product, then ~10 d_v^3 for the eigenvalues.
    const double work =
        static_cast<double>(grouping.headCount) * d_v * d_v * (static_cast<double>(basisValues.rows()) + 10.0 * d_v);
    const int threads = threadsFor(work);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
    for (Index i = 0; i < grouping.headCount; ++i)
        spectra[static_cast<std::size_t>(i)] = headSpectrumFrom(weights, grouping, i, basisValues);
    return spectra;
}

}  // namespace circuits

Expected<HeadSpectrum> headSpectrum(const PretrainedModel& model, const CircuitBasis& basis, const CircuitHead& head)
{
    if (std::string reason = noCircuitsReason(model); !reason.empty()) return Error{std::move(reason)};
    if (std::string problem = circuits::basisProblem(model, basis); !problem.empty()) return Error{std::move(problem)};
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
    if (std::string problem = circuits::basisProblem(model, basis); !problem.empty()) return Error{std::move(problem)};
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
            const std::vector<HeadSpectrum> spectra = circuits::layerSpectra(**weights, *grouping, basisValues);
            for (Index i = 0; i < h; ++i) grid(l, i) = spectra[static_cast<std::size_t>(i)].copyingScore;
        }
        if (progress && !progress(l + 1, layers)) return Error{"stopped"};
    }
    return grid;
}

}  // namespace qkv
