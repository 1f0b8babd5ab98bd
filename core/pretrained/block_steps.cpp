#include "core/pretrained/block_steps.hpp"

#include <cassert>
#include <cmath>

#include "core/attention/projections.hpp"
#include "core/common/memory.hpp"
#include "core/common/parallelism.hpp"
#include "core/common/row_products.hpp"
#include "core/ops/gelu.hpp"
#include "core/ops/layer_norm.hpp"
#include "core/ops/relu.hpp"
#include "core/ops/rms_norm.hpp"
#include "core/ops/swiglu.hpp"

namespace qkv {

MatrixF layerNormRowsForward(const MatrixF& x, const NormWeights& norm, double epsilon)
{
    return layerNormRows(x.cast<double>(), LayerNormParameters{norm.gamma, norm.beta, epsilon});
}

MatrixF rmsNormRowsForward(const MatrixF& x, const NormWeights& norm, double epsilon)
{
    MatrixF y(x.rows(), x.cols());  // R x d_model
    rmsNormForward<float>(y, x, norm.gamma.data(), epsilon);
    return y;
}

MatrixF normRowsForward(const MatrixF& x, const NormWeights& norm, PretrainedNorm kind, double epsilon)
{
    return kind == PretrainedNorm::RmsNorm ? rmsNormRowsForward(x, norm, epsilon)
                                           : layerNormRowsForward(x, norm, epsilon);
}

MatrixF denseForward(const MatrixF& x, const MatrixF& W, const RowVectorF& b)
{
    MatrixF y;  // R x n
    projectTogether({Projection{x, W, y}});
    if (b.size() > 0) y.rowwise() += b;
    return y;
}

void blockActivationForward(MatrixF& x, BlockActivation activation)
{
    switch (activation) {
    case BlockActivation::GeluErf: geluErfInPlace(x); return;
    case BlockActivation::GeluTanh: geluTanhInPlace(x); return;
    case BlockActivation::Relu: reluInPlace(x.data(), x.size()); return;
    case BlockActivation::Silu: siluForward<float>(x, x); return;
    case BlockActivation::SwiGlu: break;
    }
    assert(false && "SwiGLU is applied by swiGluForward");
}

void swiGluForward(MatrixF& up, const MatrixF& gate) { swigluForward<float>(up, gate, up); }

MatrixF feedForwardForward(const MatrixF& x, const FeedForwardWeights& weights, BlockActivation activation)
{
    MatrixF hidden = denseForward(x, weights.in, weights.inBias);  // R x d_ff
    if (activation == BlockActivation::SwiGlu) {
        swiGluForward(hidden, denseForward(x, weights.gate, RowVectorF()));
    } else if (weights.gate.size() > 0) {  // GeGLU (Gemma): act(x W_gate) * (x W_up)
        MatrixF gate = denseForward(x, weights.gate, RowVectorF());  // R x d_ff
        blockActivationForward(gate, activation);
        hidden.array() *= gate.array();
    } else {
        blockActivationForward(hidden, activation);
    }
    return denseForward(hidden, weights.out, weights.outBias);  // R x d_model
}

namespace {

// Tokens of the vocabulary per panel of Eigen's kernel (E's rows are the product's left-hand
// side, whose last partial panel sums in another order): the threads' ranges start at multiples
// of it, so a logit's bits do not depend on the thread count (head_blocks.cpp's kKeyPanel).
constexpr Index kVocabularyPanel = 48;

// logits = t E^T + b over `threads` column blocks (vocabulary ranges): R is small (a sentence)
// while V is tens of thousands. Every row through the kernel's grouped path (row_products.hpp):
// a logit depends on its own row of t only.                                            R x V
MatrixF tiedLogitsOnThreads(const MatrixF& t, const MatrixF& E, const RowVectorF& b, int threads)
{
    MatrixF logits = freshLargeMatrix(t.rows(), E.rows());  // R x V
    const Index V = E.rows();
    const auto boundary = [&](int part) {
        return part == threads ? V : V * part / threads / kVocabularyPanel * kVocabularyPanel;
    };
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int part = 0; part < threads; ++part) {
        const Index first = boundary(part);
        const Index count = boundary(part + 1) - first;
        if (count > 0) multiplyRowsStable(t, E.middleRows(first, count).transpose(), logits.middleCols(first, count));
    }
    if (b.size() > 0) logits.rowwise() += b;
    return logits;
}

int logitThreads(const MatrixF& t, const MatrixF& E)
{
    return threadsFor(static_cast<double>(t.rows()) * static_cast<double>(t.cols()) * static_cast<double>(E.rows()));
}

}  // namespace

MatrixF tiedLogitsForward(const MatrixF& t, const MatrixF& E, const RowVectorF& b)
{
    return tiedLogitsOnThreads(t, E, b, logitThreads(t, E));
}

MatrixF tiedLogitsRowsForward(const MatrixF& t, const std::vector<Index>& rows, const MatrixF& E,
                              const RowVectorF& b)
{
    // Each row of the product depends on its own row of t only (tiedLogitsOnThreads), so the
    // chosen rows are multiplied on their own.
    MatrixF gathered(static_cast<Index>(rows.size()), t.cols());  // rows x d_model
    for (std::size_t i = 0; i < rows.size(); ++i) gathered.row(static_cast<Index>(i)) = t.row(rows[i]);
    return tiedLogitsOnThreads(gathered, E, b, logitThreads(gathered, E));
}

}  // namespace qkv
