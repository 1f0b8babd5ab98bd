#include "core/pretrained/block_steps.hpp"

#include <cassert>
#include <cmath>
#include <numbers>

#include "core/attention/projections.hpp"
#include "core/common/parallelism.hpp"
#include "core/embedding/model_input.hpp"
#include "core/pretrained/rms_norm.hpp"
#include "core/pretrained/swiglu.hpp"

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
    float* a = x.data();
    const Index count = x.size();
    switch (activation) {
    case BlockActivation::GeluErf: {
        const float inverseSqrt2 = static_cast<float>(1.0 / std::numbers::sqrt2);
        for (Index i = 0; i < count; ++i) a[i] = 0.5f * a[i] * (1.0f + std::erf(a[i] * inverseSqrt2));
        return;
    }
    case BlockActivation::GeluTanh: {
        // 0.5 a (1 + tanh(c (a + 0.044715 a^3))) with Eigen's vectorised tanh (a rational
        // approximation within a few float ulps of std::tanh): a libm call per element took a
        // fifth of a GPT-2-small forward pass (n d_ff L = 9.4 M calls at 256 tokens).
        const float c = static_cast<float>(std::sqrt(2.0 / std::numbers::pi));
        Eigen::Map<Eigen::ArrayXf> v(a, count);
        v = 0.5f * v * (1.0f + (c * (v + 0.044715f * v.cube())).tanh());
        return;
    }
    case BlockActivation::Relu:
        for (Index i = 0; i < count; ++i) a[i] = a[i] > 0.0f ? a[i] : 0.0f;
        return;
    case BlockActivation::Silu: siluForward<float>(x, x); return;
    case BlockActivation::SwiGlu: break;
    }
    assert(false && "SwiGLU is applied by swiGluForward");
}

void swiGluForward(MatrixF& up, const MatrixF& gate) { swigluForward<float>(up, gate, up); }

MatrixF feedForwardForward(const MatrixF& x, const FeedForwardWeights& weights, BlockActivation activation)
{
    MatrixF hidden = denseForward(x, weights.in, weights.inBias);  // R x d_ff
    if (activation == BlockActivation::SwiGlu)
        swiGluForward(hidden, denseForward(x, weights.gate, RowVectorF()));
    else
        blockActivationForward(hidden, activation);
    return denseForward(hidden, weights.out, weights.outBias);  // R x d_model
}

MatrixF tiedLogitsForward(const MatrixF& t, const MatrixF& E, const RowVectorF& b)
{
    MatrixF logits(t.rows(), E.rows());  // R x V
    const double work = static_cast<double>(t.rows()) * static_cast<double>(t.cols()) * static_cast<double>(E.rows());
    const int threads = threadsFor(work);
    // Column blocks (vocabulary ranges): R is small (a sentence) while V is tens of thousands.
    const Index V = E.rows();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int part = 0; part < threads; ++part) {
        const Index first = V * part / threads;
        const Index count = V * (part + 1) / threads - first;
        logits.middleCols(first, count).noalias() = t * E.middleRows(first, count).transpose();
    }
    if (b.size() > 0) logits.rowwise() += b;
    return logits;
}

}  // namespace qkv
