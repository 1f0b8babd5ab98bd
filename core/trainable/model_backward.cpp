// The backward pass: model_forward.cpp's steps in reverse, each step's backward from
// model_steps.hpp. Every backward adds into its gradients; a buffer is zeroed once before its
// first reader adds to it.
//
// Symbols (model_spec.hpp): S source rows and T target rows of the packed batch, R either, V,
// d_model, h, d_ff; w = d_k (factored heads) or d_model (full heads).

#include <cmath>

#include "core/trainable/model_workspace.hpp"

namespace qkv {

namespace {

template <typename Scalar>
using State = typename ForwardWorkspace<Scalar>::State;

// MultiHead(X_q, X_kv) backward: dX_q += .., dX_kv += .. (the same buffer for self-attention).
template <typename Scalar>
void attentionBranchBackward(const ModelParameters<Scalar>& parameters, ModelParameters<Scalar>& gradient,
                             const SublayerPlan& plan, const SublayerCache<Scalar>& cache, State<Scalar>& state,
                             ConstMatrixView<Scalar> Xq, ConstMatrixView<Scalar> Xkv, std::span<const Segment> querySegments,
                             std::span<const Segment> keySegments, ConstMatrixView<Scalar> dOut, MatrixView<Scalar> dXq,
                             MatrixView<Scalar> dXkv)
{
    const ModelSpec& spec = parameters.spec;
    const Index d = spec.d_model, h = spec.headCount;
    const AttentionShape shape = attentionShapeOf(spec, plan.kind);
    const auto W = [&](std::size_t i) { return parameterMatrix(parameters, plan.weights[i], d, d); };
    const auto dW = [&](std::size_t i) { return parameterMatrix(gradient, plan.weights[i], d, d); };
    const std::size_t valueIndex = plan.weights.size() - 2;
    // 5. Output = Concat W^O: dConcat = dOut W^O^T (a fresh buffer: written, not added), dW^O.
    state.dConcat.resize(Xq.rows(), d);
    state.dConcat.view().noalias() = dOut * W(valueIndex + 1).transpose();
    linearBackward<Scalar>(MatrixView<Scalar>(state.dConcat.view().topRows(0)), dW(valueIndex + 1), nullptr, dOut,
                           cache.concat.view(), W(valueIndex + 1));
    // 2-4. Per sequence: head_i = A_i V_i, the softmax, the scores.
    state.dQuery.resizeZero(Xq.rows(), h * shape.queryWidth);
    state.dValue.resizeZero(Xkv.rows(), d);
    if (!shape.sharedKeys) state.dKey.resizeZero(Xkv.rows(), d);
    const Scalar* attention = cache.attention.data();
    for (std::size_t b = 0; b < querySegments.size(); ++b) {
        const Segment q = querySegments[b], k = keySegments[b];
        state.dScores.resize(static_cast<std::size_t>(std::max<Index>(q.length * k.length, 1)));
        const auto keys = shape.sharedKeys ? ConstMatrixView<Scalar>(Xkv.middleRows(k.start, k.length))
                                           : ConstMatrixView<Scalar>(cache.key.view().middleRows(k.start, k.length));
        const auto dKeys = shape.sharedKeys ? MatrixView<Scalar>(dXkv.middleRows(k.start, k.length))
                                            : MatrixView<Scalar>(state.dKey.view().middleRows(k.start, k.length));
        attentionBackward<Scalar>(state.dQuery.view().middleRows(q.start, q.length), dKeys,
                                  state.dValue.view().middleRows(k.start, k.length),
                                  state.dConcat.view().middleRows(q.start, q.length), attention,
                                  cache.query.view().middleRows(q.start, q.length), keys,
                                  cache.value.view().middleRows(k.start, k.length), shape, state.dScores.data());
        attention += h * q.length * k.length;
    }
    // 1. Projections.
    linearBackward<Scalar>(dXkv, dW(valueIndex), nullptr, state.dValue.view(), Xkv, W(valueIndex));
    if (!shape.sharedKeys) {
        linearBackward<Scalar>(dXq, dW(0), nullptr, state.dQuery.view(), Xq, W(0));
        linearBackward<Scalar>(dXkv, dW(1), nullptr, state.dKey.view(), Xkv, W(1));
        return;
    }
    for (Index i = 0; i < h; ++i)
        linearBackward<Scalar>(dXq, dW(static_cast<std::size_t>(i)), nullptr, state.dQuery.view().middleCols(i * d, d), Xq,
                               W(static_cast<std::size_t>(i)));
}

template <typename Scalar>
void mlpBranchBackward(const ModelParameters<Scalar>& parameters, ModelParameters<Scalar>& gradient,
                       const SublayerPlan& plan, const SublayerCache<Scalar>& cache, State<Scalar>& state,
                       ConstMatrixView<Scalar> x, ConstMatrixView<Scalar> dOut, MatrixView<Scalar> dx)
{
    const ModelSpec& spec = parameters.spec;
    const Index d = spec.d_model, d_ff = spec.d_ff, R = x.rows();
    // dHidden = dOut W_out^T (a fresh buffer: written, not added), then W_out's and b_out's shares.
    const auto W_out = parameterMatrix(parameters, plan.weights[2], d_ff, d);
    state.dHidden.resize(R, d_ff);
    state.dHidden.view().noalias() = dOut * W_out.transpose();
    linearBackward<Scalar>(MatrixView<Scalar>(state.dHidden.view().topRows(0)),
                           parameterMatrix(gradient, plan.weights[2], d_ff, d), gradient.values.data() + plan.weights[3],
                           dOut, cache.hidden.view(), W_out);
    state.dPreActivation.resize(R, d_ff);
    activationBackward<Scalar>(state.dPreActivation.view(), state.dHidden.view(), cache.preActivation.view(),
                               spec.activation);
    linearBackward<Scalar>(dx, parameterMatrix(gradient, plan.weights[0], d, d_ff), gradient.values.data() + plan.weights[1],
                           state.dPreActivation.view(), x, parameterMatrix(parameters, plan.weights[0], d, d_ff));
}

template <typename Scalar>
void branchBackward(const ModelParameters<Scalar>& parameters, ModelParameters<Scalar>& gradient,
                    const SublayerPlan& plan, const SublayerCache<Scalar>& cache, State<Scalar>& state,
                    const Tensor<Scalar>& input, const Tensor<Scalar>* memory, bool decoder, ConstMatrixView<Scalar> dOut,
                    MatrixView<Scalar> dInput)
{
    const PackedBatch& batch = state.batch;
    const std::span<const Segment> rows = decoder ? batch.target : batch.source;
    if (plan.kind == SublayerKind::Mlp)
        mlpBranchBackward<Scalar>(parameters, gradient, plan, cache, state, input.view(), dOut, dInput);
    else if (plan.kind == SublayerKind::CrossAttention)
        attentionBranchBackward<Scalar>(parameters, gradient, plan, cache, state, input.view(), memory->view(), rows,
                                batch.source, dOut, dInput, state.dMemory.view());
    else
        attentionBranchBackward<Scalar>(parameters, gradient, plan, cache, state, input.view(), input.view(), rows, rows, dOut,
                                dInput, dInput);
}

// On entry state.dStream holds dL/d(out) of the block; on return dL/dx. Cross-attention adds
// dL/d(encoder output) into state.dMemory.
template <typename Scalar>
void sublayerBackward(const ModelParameters<Scalar>& parameters, ModelParameters<Scalar>& gradient,
                      const SublayerPlan& plan, const SublayerCache<Scalar>& cache, State<Scalar>& state,
                      const Tensor<Scalar>* memory, bool decoder)
{
    const ModelSpec& spec = parameters.spec;
    const Scalar* values = parameters.values.data();
    Scalar* dValues = gradient.values.data();
    const Index R = cache.stream.rows, d = spec.d_model;
    if (plan.hasNorm && spec.placement == NormPlacement::Post) {
        // out = norm(s), s = x + branch(x): ds, then the residual hands ds to x and to the branch.
        state.dBranchInput.resizeZero(R, d);  // ds
        layerNormBackward<Scalar>(state.dBranchInput.view(), dValues + plan.gamma, dValues + plan.beta,
                                  state.dStream.view(), cache.normed.view(), cache.mean.data(), cache.rstd.data(),
                                  values + plan.gamma);
        state.dStream.resizeZero(R, d);
        state.dBranchOutput.resizeZero(R, d);
        residualBackward<Scalar>(state.dStream.view(), state.dBranchOutput.view(), state.dBranchInput.view());
        branchBackward<Scalar>(parameters, gradient, plan, cache, state, cache.stream, memory, decoder,
                       state.dBranchOutput.view(), state.dStream.view());
    } else if (plan.hasNorm) {
        // out = x + branch(a), a = norm(x): dx = dout (the residual) + the norm's share.
        state.dBranchInput.resizeZero(R, d);  // da
        branchBackward<Scalar>(parameters, gradient, plan, cache, state, cache.normed, memory, decoder, state.dStream.view(),
                       state.dBranchInput.view());
        layerNormBackward<Scalar>(state.dStream.view(), dValues + plan.gamma, dValues + plan.beta,
                                  state.dBranchInput.view(), cache.stream.view(), cache.mean.data(), cache.rstd.data(),
                                  values + plan.gamma);
    } else {
        // out = x + branch(x): dx = dout + the branch's share.
        state.dBranchOutput.resize(R, d);
        state.dBranchOutput.view() = state.dStream.view();
        branchBackward<Scalar>(parameters, gradient, plan, cache, state, cache.stream, memory, decoder,
                       state.dBranchOutput.view(), state.dStream.view());
    }
}

// On entry state.dStream holds dL/d(stack result); on return dL/d(embedded input).
template <typename Scalar>
void stackBackward(const ModelParameters<Scalar>& parameters, ModelParameters<Scalar>& gradient, const StackPlan& plan,
                   const StackCache<Scalar>& cache, State<Scalar>& state, const Tensor<Scalar>* memory, bool decoder)
{
    if (plan.hasFinalNorm) {
        const Index R = cache.output.rows;
        state.dBranchOutput.resize(R, parameters.spec.d_model);
        state.dBranchOutput.view() = state.dStream.view();
        state.dStream.resizeZero(R, parameters.spec.d_model);
        layerNormBackward<Scalar>(state.dStream.view(), gradient.values.data() + plan.finalGamma,
                                  gradient.values.data() + plan.finalBeta, state.dBranchOutput.view(), cache.output.view(),
                                  cache.mean.data(), cache.rstd.data(), parameters.values.data() + plan.finalGamma);
    }
    for (std::size_t j = plan.sublayers.size(); j-- > 0;)
        sublayerBackward(parameters, gradient, plan.sublayers[j], cache.sublayers[j], state, memory, decoder);
}

template <typename Scalar>
void embedBackward(ModelParameters<Scalar>& gradient, const State<Scalar>& state, std::span<const std::int32_t> ids,
                   std::span<const Index> positions)
{
    const ModelSpec& spec = gradient.spec;
    const ModelPlan& plan = state.plan;
    const Scalar scale = spec.scaleEmbedding ? std::sqrt(static_cast<Scalar>(spec.d_model)) : Scalar(1);
    const Index positionRows = plan.learnedPositions ? spec.maxPositions : 0;
    embeddingBackward<Scalar>(parameterMatrix(gradient, plan.tokenTable, spec.vocabularySize, spec.d_model),
                              parameterMatrix(gradient, plan.positionTable, positionRows, spec.d_model),
                              state.dStream.view(), ids, positions, scale);
}

}  // namespace

template <typename Scalar>
void modelBackward(const ModelParameters<Scalar>& parameters, State<Scalar>& state, ModelParameters<Scalar>& gradient)
{
    const ModelSpec& spec = parameters.spec;
    const ModelPlan& plan = state.plan;
    const PackedBatch& batch = state.batch;
    // Readout: logits = x W + b                                                        T x V
    state.dStream.resizeZero(batch.targetRows(), spec.d_model);
    linearBackward<Scalar>(state.dStream.view(),
                           parameterMatrix(gradient, plan.readoutWeight, spec.d_model, spec.vocabularySize),
                           gradient.values.data() + plan.readoutBias, state.dLogits.view(),
                           state.decoder.result(plan.decoder).view(),
                           parameterMatrix(parameters, plan.readoutWeight, spec.d_model, spec.vocabularySize));
    const Tensor<Scalar>* memory = spec.hasEncoder() ? &state.encoder.result(plan.encoder) : nullptr;
    if (memory != nullptr) state.dMemory.resizeZero(batch.sourceRows(), spec.d_model);
    stackBackward(parameters, gradient, plan.decoder, state.decoder, state, memory, true);
    embedBackward(gradient, state, batch.targetIds, batch.targetPositions);
    if (memory == nullptr) return;
    // The encoder, from what every cross-attention sent back to its output.
    state.dStream.resize(batch.sourceRows(), spec.d_model);
    state.dStream.view() = state.dMemory.view();
    stackBackward<Scalar>(parameters, gradient, plan.encoder, state.encoder, state, nullptr, false);
    embedBackward(gradient, state, batch.sourceIds, batch.sourcePositions);
}

template void modelBackward<float>(const ModelParameters<float>&, State<float>&, ModelParameters<float>&);
template void modelBackward<double>(const ModelParameters<double>&, State<double>&, ModelParameters<double>&);

}  // namespace qkv
