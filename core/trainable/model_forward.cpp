// The forward pass over a packed batch, the loss, and the public entry points
// (model_forward.hpp). The backward pass is model_backward.cpp; the steps are model_steps.hpp.
//
// Symbols (model_spec.hpp): S source rows and T target rows of the packed batch, R either, B
// sequences, V, P, d_model, h, d_k, d_ff; w = d_k (factored heads) or d_model (full heads).

#include <cmath>
#include <limits>

#include "core/trainable/model_workspace.hpp"

namespace qkv {

namespace {

template <typename Scalar>
using State = typename ForwardWorkspace<Scalar>::State;

template <typename Scalar>
void embed(const ModelParameters<Scalar>& parameters, const State<Scalar>& state, std::span<const std::int32_t> ids,
           std::span<const Index> positions, Tensor<Scalar>& x)
{
    const ModelSpec& spec = parameters.spec;
    const ModelPlan& plan = state.plan;
    x.resize(static_cast<Index>(ids.size()), spec.d_model);  // R x d_model
    const ConstMatrixView<Scalar> positionTable =
        plan.learnedPositions ? ConstMatrixView<Scalar>(parameterMatrix(parameters, plan.positionTable, spec.maxPositions, spec.d_model))
                              : ConstMatrixView<Scalar>(state.sinusoid);
    const Scalar scale = spec.scaleEmbedding ? std::sqrt(static_cast<Scalar>(spec.d_model)) : Scalar(1);
    embeddingForward<Scalar>(x.view(), ids, positions,
                             parameterMatrix(parameters, plan.tokenTable, spec.vocabularySize, spec.d_model),
                             positionTable, scale);
}

// One attention sublayer over the packed batch: branch = MultiHead(X_q, X_kv) (paper section 3.2.2).
template <typename Scalar>
void attentionBranchForward(const ModelParameters<Scalar>& parameters, const SublayerPlan& plan,
                            SublayerCache<Scalar>& cache, ConstMatrixView<Scalar> Xq, ConstMatrixView<Scalar> Xkv,
                            std::span<const Segment> querySegments, std::span<const Segment> keySegments)
{
    const ModelSpec& spec = parameters.spec;
    const Index d = spec.d_model, h = spec.headCount;
    const AttentionShape shape = attentionShapeOf(spec, plan.kind);
    const auto W = [&](std::size_t i) { return parameterMatrix(parameters, plan.weights[i], d, d); };
    const std::size_t valueIndex = plan.weights.size() - 2;  // W_V, then W_O
    // 1. Projections over every row of the batch, one product each (the fused layout).
    cache.query.resize(Xq.rows(), h * shape.queryWidth);
    if (!shape.sharedKeys) {
        linearForward<Scalar>(cache.query.view(), Xq, W(0), nullptr);  // Q = X_q W^Q       R_q x d_model
        cache.key.resize(Xkv.rows(), d);
        linearForward<Scalar>(cache.key.view(), Xkv, W(1), nullptr);   // K = X_kv W^K      R_k x d_model
    } else {
        for (Index i = 0; i < h; ++i)  // X_q W_i                                       R_q x d_model each
            linearForward<Scalar>(cache.query.view().middleCols(i * d, d), Xq, W(static_cast<std::size_t>(i)), nullptr);
    }
    cache.value.resize(Xkv.rows(), d);
    linearForward<Scalar>(cache.value.view(), Xkv, W(valueIndex), nullptr);  // V = X_kv W^V  R_k x d_model
    // 2-4. Scores, softmax and head_i = A_i V_i, one sequence at a time.
    Index attentionSize = 0;
    for (std::size_t b = 0; b < querySegments.size(); ++b)
        attentionSize += h * querySegments[b].length * keySegments[b].length;
    cache.attention.resize(attentionSize, 1);
    cache.concat.resize(Xq.rows(), d);
    Scalar* attention = cache.attention.data();
    for (std::size_t b = 0; b < querySegments.size(); ++b) {
        const Segment q = querySegments[b], k = keySegments[b];
        const ConstMatrixView<Scalar> keys = shape.sharedKeys
                                                 ? ConstMatrixView<Scalar>(Xkv.middleRows(k.start, k.length))
                                                 : ConstMatrixView<Scalar>(cache.key.view().middleRows(k.start, k.length));
        attentionForward<Scalar>(cache.concat.view().middleRows(q.start, q.length), attention,
                                 cache.query.view().middleRows(q.start, q.length), keys,
                                 cache.value.view().middleRows(k.start, k.length), shape);
        attention += h * q.length * k.length;
    }
    // 5. Output = Concat(head_1..head_h) W^O                                           R_q x d_model
    cache.branch.resize(Xq.rows(), d);
    linearForward<Scalar>(cache.branch.view(), cache.concat.view(), W(valueIndex + 1), nullptr);
}

// FFN(x) = act(x W_in + b_in) W_out + b_out (paper section 3.3).
template <typename Scalar>
void mlpBranchForward(const ModelParameters<Scalar>& parameters, const SublayerPlan& plan, SublayerCache<Scalar>& cache,
                      ConstMatrixView<Scalar> x)
{
    const ModelSpec& spec = parameters.spec;
    const Index d = spec.d_model, d_ff = spec.d_ff, R = x.rows();
    cache.preActivation.resize(R, d_ff);
    cache.hidden.resize(R, d_ff);
    cache.branch.resize(R, d);
    linearForward<Scalar>(cache.preActivation.view(), x, parameterMatrix(parameters, plan.weights[0], d, d_ff),
                          parameters.values.data() + plan.weights[1]);
    activationForward<Scalar>(cache.hidden.view(), cache.preActivation.view(), spec.activation);
    linearForward<Scalar>(cache.branch.view(), cache.hidden.view(), parameterMatrix(parameters, plan.weights[2], d_ff, d),
                          parameters.values.data() + plan.weights[3]);
}

// One residual block: pre-norm out = x + branch(norm(x)); post-norm out = norm(x + branch(x)).
template <typename Scalar>
void sublayerForward(const ModelParameters<Scalar>& parameters, const SublayerPlan& plan, SublayerCache<Scalar>& cache,
                     Tensor<Scalar>& out, const Tensor<Scalar>* memory, const PackedBatch& batch, bool decoder)
{
    const ModelSpec& spec = parameters.spec;
    const Scalar* values = parameters.values.data();
    const Index R = cache.stream.rows, d = spec.d_model;
    const bool preNorm = plan.hasNorm && spec.placement == NormPlacement::Pre;
    const bool postNorm = plan.hasNorm && spec.placement == NormPlacement::Post;
    if (preNorm) {
        cache.normed.resize(R, d);
        cache.mean.resize(R, 1);
        cache.rstd.resize(R, 1);
        layerNormForward<Scalar>(cache.normed.view(), cache.mean.data(), cache.rstd.data(), cache.stream.view(),
                                 values + plan.gamma, values + plan.beta, spec.normEpsilon);
    }
    const Tensor<Scalar>& input = preNorm ? cache.normed : cache.stream;
    const std::span<const Segment> rows = decoder ? batch.target : batch.source;
    if (plan.kind == SublayerKind::Mlp)
        mlpBranchForward<Scalar>(parameters, plan, cache, input.view());
    else if (plan.kind == SublayerKind::CrossAttention)
        attentionBranchForward<Scalar>(parameters, plan, cache, input.view(), memory->view(), rows, batch.source);
    else
        attentionBranchForward<Scalar>(parameters, plan, cache, input.view(), input.view(), rows, rows);
    out.resize(R, d);
    if (!postNorm) {
        residualForward<Scalar>(out.view(), cache.stream.view(), cache.branch.view());
        return;
    }
    cache.normed.resize(R, d);
    cache.mean.resize(R, 1);
    cache.rstd.resize(R, 1);
    residualForward<Scalar>(cache.normed.view(), cache.stream.view(), cache.branch.view());
    layerNormForward<Scalar>(out.view(), cache.mean.data(), cache.rstd.data(), cache.normed.view(),
                             values + plan.gamma, values + plan.beta, spec.normEpsilon);
}

// Every block of one stack; cache.sublayers[0].stream holds the embedded input.
template <typename Scalar>
void stackForward(const ModelParameters<Scalar>& parameters, const StackPlan& plan, StackCache<Scalar>& cache,
                  const Tensor<Scalar>* memory, const PackedBatch& batch, bool decoder)
{
    const std::size_t count = plan.sublayers.size();
    for (std::size_t j = 0; j < count; ++j) {
        Tensor<Scalar>& out = j + 1 < count ? cache.sublayers[j + 1].stream : cache.output;
        sublayerForward(parameters, plan.sublayers[j], cache.sublayers[j], out, memory, batch, decoder);
    }
    if (!plan.hasFinalNorm) return;
    const Index R = cache.output.rows;
    cache.final.resize(R, parameters.spec.d_model);
    cache.mean.resize(R, 1);
    cache.rstd.resize(R, 1);
    layerNormForward<Scalar>(cache.final.view(), cache.mean.data(), cache.rstd.data(), cache.output.view(),
                             parameters.values.data() + plan.finalGamma, parameters.values.data() + plan.finalBeta,
                             parameters.spec.normEpsilon);
}

// Softmax, loss and accuracy of state.logits against the batch's labels.
template <typename Scalar>
BatchLoss scoreBatch(State<Scalar>& state)
{
    const PackedBatch& batch = state.batch;
    state.probabilities.resize(state.logits.rows, state.logits.cols);
    state.predictions.resize(static_cast<std::size_t>(batch.targetRows()));
    const double lossSum =
        crossEntropyForward<Scalar>(state.probabilities.view(), state.logits.view(), batch.labels, state.predictions);
    BatchLoss result;
    result.sequences = static_cast<Index>(batch.target.size());
    for (const Segment& sequence : batch.target) {
        bool allCorrect = true;
        for (Index r = sequence.start; r < sequence.start + sequence.length; ++r) {
            const std::int32_t label = batch.labels[static_cast<std::size_t>(r)];
            if (label < 0) continue;
            const bool correct = state.predictions[static_cast<std::size_t>(r)] == label;
            ++result.scoredTokens;
            result.correctTokens += correct ? 1 : 0;
            allCorrect = allCorrect && correct;
        }
        result.correctSequences += allCorrect ? 1 : 0;
    }
    result.loss = result.scoredTokens > 0 ? lossSum / static_cast<double>(result.scoredTokens) : 0.0;
    return result;
}

// Checks the batch and the parameters' size, then packs the batch and runs the forward pass.
template <typename Scalar>
std::string forwardBatch(const ModelParameters<Scalar>& parameters, const std::vector<SequencePair>& batch,
                         State<Scalar>& state)
{
    std::string problem = batchProblem(parameters.spec, batch);
    if (!problem.empty()) return problem;
    state.prepare(parameters.spec);
    if (parameters.values.size() != state.plan.parameterCount)
        return "the parameters hold " + std::to_string(parameters.values.size()) + " values; the model needs " +
               std::to_string(state.plan.parameterCount);
    packBatch(parameters.spec, batch, state.batch);
    modelForward(parameters, state);
    return {};
}

template <typename Scalar>
BatchLoss failed(std::string problem)
{
    BatchLoss result;
    result.loss = std::numeric_limits<double>::quiet_NaN();
    result.problem = std::move(problem);
    return result;
}

}  // namespace

template <typename Scalar>
void modelForward(const ModelParameters<Scalar>& parameters, State<Scalar>& state)
{
    const PackedBatch& batch = state.batch;
    if (parameters.spec.hasEncoder()) {
        embed(parameters, state, batch.sourceIds, batch.sourcePositions, state.encoder.sublayers[0].stream);
        stackForward<Scalar>(parameters, state.plan.encoder, state.encoder, nullptr, batch, false);
    }
    decoderForward(parameters, state);
}

template <typename Scalar>
void decoderForward(const ModelParameters<Scalar>& parameters, State<Scalar>& state)
{
    const ModelSpec& spec = parameters.spec;
    const ModelPlan& plan = state.plan;
    const PackedBatch& batch = state.batch;
    // The encoder's output, S x d_model: what every cross-attention reads.
    const Tensor<Scalar>* memory = spec.hasEncoder() ? &state.encoder.result(plan.encoder) : nullptr;
    embed(parameters, state, batch.targetIds, batch.targetPositions, state.decoder.sublayers[0].stream);
    stackForward(parameters, plan.decoder, state.decoder, memory, batch, true);
    // Readout: logits = x W + b                                                        T x V
    state.logits.resize(batch.targetRows(), spec.vocabularySize);
    linearForward<Scalar>(state.logits.view(), state.decoder.result(plan.decoder).view(),
                          parameterMatrix(parameters, plan.readoutWeight, spec.d_model, spec.vocabularySize),
                          parameters.values.data() + plan.readoutBias);
}

template <typename Scalar>
ForwardWorkspace<Scalar>::ForwardWorkspace() : state_(std::make_unique<State>())
{
}
template <typename Scalar>
ForwardWorkspace<Scalar>::~ForwardWorkspace() = default;
template <typename Scalar>
ForwardWorkspace<Scalar>::ForwardWorkspace(ForwardWorkspace&&) noexcept = default;
template <typename Scalar>
ForwardWorkspace<Scalar>& ForwardWorkspace<Scalar>::operator=(ForwardWorkspace&&) noexcept = default;

template <typename Scalar>
BatchLoss lossAndGradient(const ModelParameters<Scalar>& parameters, const std::vector<SequencePair>& batch,
                          ModelParameters<Scalar>& gradient, ForwardWorkspace<Scalar>& workspace)
{
    State<Scalar>& state = workspace.state();
    std::string problem = forwardBatch(parameters, batch, state);
    if (!problem.empty()) return failed<Scalar>(std::move(problem));
    const BatchLoss result = scoreBatch<Scalar>(state);
    if (gradient.values.size() != parameters.values.size() || !(gradient.spec == parameters.spec))
        gradient = ModelParameters<Scalar>::zeros(parameters.spec);
    std::fill(gradient.values.begin(), gradient.values.end(), Scalar(0));
    // d(mean loss)/d(logits) = (p - onehot) / scored tokens
    state.dLogits.resize(state.logits.rows, state.logits.cols);
    const Scalar dLoss = result.scoredTokens > 0 ? Scalar(1) / static_cast<Scalar>(result.scoredTokens) : Scalar(0);
    crossEntropyBackward<Scalar>(state.dLogits.view(), state.probabilities.view(), state.batch.labels, dLoss);
    modelBackward(parameters, state, gradient);
    return result;
}

template <typename Scalar>
BatchLoss lossAndGradient(const ModelParameters<Scalar>& parameters, const std::vector<SequencePair>& batch,
                          ModelParameters<Scalar>& gradient)
{
    thread_local ForwardWorkspace<Scalar> workspace;
    return lossAndGradient(parameters, batch, gradient, workspace);
}

template <typename Scalar>
BatchLoss evaluateLoss(const ModelParameters<Scalar>& parameters, const std::vector<SequencePair>& batch,
                       ForwardWorkspace<Scalar>& workspace)
{
    State<Scalar>& state = workspace.state();
    std::string problem = forwardBatch(parameters, batch, state);
    if (!problem.empty()) return failed<Scalar>(std::move(problem));
    return scoreBatch<Scalar>(state);
}

template <typename Scalar>
BatchLoss evaluateLoss(const ModelParameters<Scalar>& parameters, const std::vector<SequencePair>& batch)
{
    thread_local ForwardWorkspace<Scalar> workspace;
    return evaluateLoss(parameters, batch, workspace);
}

template class ForwardWorkspace<float>;
template class ForwardWorkspace<double>;
template void modelForward<float>(const ModelParameters<float>&, State<float>&);
template void modelForward<double>(const ModelParameters<double>&, State<double>&);
template void decoderForward<float>(const ModelParameters<float>&, State<float>&);
template void decoderForward<double>(const ModelParameters<double>&, State<double>&);
template BatchLoss lossAndGradient<float>(const ModelParameters<float>&, const std::vector<SequencePair>&,
                                          ModelParameters<float>&);
template BatchLoss lossAndGradient<double>(const ModelParameters<double>&, const std::vector<SequencePair>&,
                                           ModelParameters<double>&);
template BatchLoss lossAndGradient<float>(const ModelParameters<float>&, const std::vector<SequencePair>&,
                                          ModelParameters<float>&, ForwardWorkspace<float>&);
template BatchLoss lossAndGradient<double>(const ModelParameters<double>&, const std::vector<SequencePair>&,
                                           ModelParameters<double>&, ForwardWorkspace<double>&);
template BatchLoss evaluateLoss<float>(const ModelParameters<float>&, const std::vector<SequencePair>&);
template BatchLoss evaluateLoss<double>(const ModelParameters<double>&, const std::vector<SequencePair>&);
template BatchLoss evaluateLoss<float>(const ModelParameters<float>&, const std::vector<SequencePair>&,
                                       ForwardWorkspace<float>&);
template BatchLoss evaluateLoss<double>(const ModelParameters<double>&, const std::vector<SequencePair>&,
                                        ForwardWorkspace<double>&);

}  // namespace qkv
