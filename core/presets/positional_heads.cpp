#include "core/presets/positional_heads.hpp"

#include <algorithm>
#include <cmath>

#include "core/common/random.hpp"
#include "core/embedding/embeddings.hpp"
#include "core/ops/softmax.hpp"
#include "core/presets/positional_bases.hpp"

namespace qkv {

namespace {

using Eigen::MatrixXd;

// Fitting settings, chosen by measurement (docs/presets.md): more steps or samples changed the
// property-test figures by less than a percent.
constexpr Index kBasisColumns = 64;   // leading directions of PE(0..127) the head may read
constexpr Index kMaxRank = 32;        // rank of W_i used (<= d_k)
constexpr int kSteps = 300;
constexpr int kSentencesPerStep = 12;
constexpr double kLearningRate = 0.05;
constexpr double kWeightDecay = 1e-4;

struct Adam {
    MatrixXd m, v;
    int step = 0;
    void update(MatrixXd& parameter, const MatrixXd& gradient)
    {
        if (m.size() == 0) m = v = MatrixXd::Zero(parameter.rows(), parameter.cols());
        ++step;
        m = 0.9 * m + 0.1 * gradient;
        v = 0.999 * v + 0.001 * gradient.cwiseProduct(gradient);
        const double c1 = 1.0 - std::pow(0.9, step), c2 = 1.0 - std::pow(0.999, step);
        parameter.array() -= kLearningRate * (m.array() / c1) / ((v.array() / c2).sqrt() + 1e-8);
    }
};

MatrixXd gaussian(SplitMix64& stream, Index rows, Index cols, double scale)
{
    MatrixXd m(rows, cols);
    for (Index r = 0; r < rows; ++r)
        for (Index c = 0; c < cols; ++c) m(r, c) = scale * stream.normal();
    return m;
}

// Word noise for the fit. Drawing fresh normals dominated the fit's time (~20M Box-Muller
// draws), so each sentence reads a window of a fixed bank of normals at a random offset.
class NoiseBank {
public:
    NoiseBank(SplitMix64& stream, Index columns) : bank_(gaussian(stream, kRows, columns, 1.0)) {}
    // n x columns of N(0, scale^2) noise.
    MatrixXd draw(SplitMix64& stream, Index n, double scale) const
    {
        const Index start = static_cast<Index>(stream.next() % static_cast<std::uint64_t>(kRows - n));
        return bank_.middleRows(start, n) * scale;
    }

private:
    static constexpr Index kRows = 4096;
    MatrixXd bank_;
};

// One sentence pair's cross-entropy gradient with respect to A and B (scores (X_q A)(X_k B)^T
// / sqrt(d_k), softmax over keys, target the intended key).
void accumulateGradient(const MatrixXd& queries, const MatrixXd& keys, const MatrixXd& A, const MatrixXd& B,
                        HeadPresetKind kind, double scale, MatrixXd& gradA, MatrixXd& gradB)
{
    const MatrixXd q = queries * A, k = keys * B;       // n_q x rank, n_k x rank
    MatrixXd p = (q * k.transpose()) * scale;           // n_q x n_k scores, then probabilities
    for (Index t = 0; t < p.rows(); ++t) {
        softmaxInPlace(p.row(t));
        p(t, intendedPositionalKey(kind, t, p.rows(), p.cols())) -= 1.0;  // dLoss/dscore
    }
    p *= scale / static_cast<double>(p.rows());
    gradA.noalias() += queries.transpose() * (p * k);
    gradB.noalias() += keys.transpose() * (p.transpose() * q);
}

}  // namespace

Index intendedPositionalKey(HeadPresetKind kind, Index t, Index n_q, Index n_k)
{
    switch (kind) {
    case HeadPresetKind::PreviousToken: return std::clamp<Index>(t - 1, 0, n_k - 1);
    case HeadPresetKind::NextToken: return std::min(t + 1 < n_q ? t + 1 : t, n_k - 1);
    default: return std::min(t, n_k - 1);
    }
}

PositionalHead fitPositionalHead(HeadPresetKind kind, Index d_model, Index d_k, double tokenScale)
{
    const MatrixXd basis = positionBasis(d_model, positionalFitSpan, kBasisColumns);  // d_model x r
    const Index r = basis.cols();
    const Index rank = std::min({d_k, r, kMaxRank});
    // The encodings in the basis' coordinates; a word vector s e (e ~ N(0, I)) projects to
    // N(0, s^2 I_r) there, so the noise is drawn in r dimensions.
    const MatrixXd positions = positionalEncoding(positionalFitSpan, d_model).cast<double>() * basis;  // T x r
    const bool cross = kind == HeadPresetKind::SamePosition;
    SplitMix64 stream(hashWithSeed(presetName(kind), 0x9e3779b97f4a7c15ull));
    MatrixXd A = gaussian(stream, r, rank, 0.1), B = gaussian(stream, r, rank, 0.1);
    const NoiseBank noise(stream, r);
    const double scale = 1.0 / std::sqrt(static_cast<double>(d_k));
    Adam adamA, adamB;
    for (int step = 0; step < kSteps; ++step) {
        MatrixXd gradA = MatrixXd::Zero(r, rank), gradB = MatrixXd::Zero(r, rank);
        for (int sentence = 0; sentence < kSentencesPerStep; ++sentence) {
            const auto length = [&] { return 5 + static_cast<Index>(stream.next() % (positionalFitSpan - 4)); };
            const Index n_q = length();
            const MatrixXd queries = positions.topRows(n_q) + noise.draw(stream, n_q, tokenScale);
            if (cross) {
                // Queries and keys from different sentences of unrelated lengths.
                const Index n_k = length();
                const MatrixXd keys = positions.topRows(n_k) + noise.draw(stream, n_k, tokenScale);
                accumulateGradient(queries, keys, A, B, kind, scale, gradA, gradB);
            } else {
                accumulateGradient(queries, queries, A, B, kind, scale, gradA, gradB);
            }
        }
        gradA = gradA / kSentencesPerStep + kWeightDecay * A;
        gradB = gradB / kSentencesPerStep + kWeightDecay * B;
        adamA.update(A, gradA);
        adamB.update(B, gradB);
    }
    return PositionalHead{basis * A, basis * B};  // d_model x rank each
}

}  // namespace qkv
