// What the views read of a trained model: one example's attention layers (their inputs and
// every head's weights) and greedy decoding.

#include <algorithm>

#include "core/trainable/model_workspace.hpp"

namespace qkv {

namespace {

using State = ForwardWorkspace<float>::State;

// Runs the forward pass over one example; false when it does not fit the model.
bool forwardOne(const ModelParameters<float>& parameters, const SequencePair& example, State& state)
{
    const std::vector<SequencePair> batch{example};
    if (!batchProblem(parameters.spec, batch).empty()) return false;
    state.prepare(parameters.spec);
    if (parameters.values.size() != state.plan.parameterCount) return false;
    packBatch(parameters.spec, batch, state.batch);
    modelForward(parameters, state);
    return true;
}

void traceStack(const ModelSpec& spec, const StackPlan& plan, const StackCache<float>& cache,
                const Tensor<float>* memory, const std::vector<AttentionLayerInfo>& infos, ModelTrace& trace)
{
    for (std::size_t j = 0; j < plan.sublayers.size(); ++j) {
        const SublayerPlan& sublayer = plan.sublayers[j];
        if (!sublayer.isAttention()) continue;
        const SublayerCache<float>& c = cache.sublayers[j];
        // The layer reads norm(x) in pre-norm, the stream itself otherwise (design: X_q of the app's layer).
        const Tensor<float>& input = sublayer.hasNorm && spec.placement == NormPlacement::Pre ? c.normed : c.stream;
        AttentionLayerTrace layer;
        layer.info = infos[static_cast<std::size_t>(sublayer.attentionLayer)];
        layer.queryInput = input.view();
        layer.keyValueInput = sublayer.kind == SublayerKind::CrossAttention ? memory->view() : input.view();
        const Index n_q = layer.queryInput.rows(), n_k = layer.keyValueInput.rows();
        for (Index i = 0; i < spec.headCount; ++i)
            layer.attention.emplace_back(Eigen::Map<const MatrixF>(c.attention.data() + i * n_q * n_k, n_q, n_k));
        trace.layers.push_back(std::move(layer));
    }
}

}  // namespace

ModelTrace traceExample(const ModelParameters<float>& parameters, const SequencePair& example)
{
    ModelTrace trace;
    ForwardWorkspace<float> workspace;
    State& state = workspace.state();
    if (!forwardOne(parameters, example, state)) return trace;
    const ModelSpec& spec = parameters.spec;
    const std::vector<AttentionLayerInfo> infos = attentionLayers(spec);
    const Tensor<float>* memory = spec.hasEncoder() ? &state.encoder.result(state.plan.encoder) : nullptr;
    if (spec.hasEncoder()) traceStack(spec, state.plan.encoder, state.encoder, nullptr, infos, trace);
    traceStack(spec, state.plan.decoder, state.decoder, memory, infos, trace);
    trace.logits = state.logits.view();
    return trace;
}

std::vector<std::int32_t> greedyDecode(const ModelParameters<float>& parameters, const std::vector<std::int32_t>& source,
                                       std::int32_t bos, std::int32_t eos, Index maxLength)
{
    std::vector<std::int32_t> answer;
    const auto limit = static_cast<std::size_t>(std::max<Index>(0, std::min(maxLength, parameters.spec.maxPositions)));
    std::vector<SequencePair> batch{{source, {bos}, {-1}}};
    SequencePair& pair = batch.front();
    thread_local ForwardWorkspace<float> workspace;
    State& state = workspace.state();
    while (answer.size() < limit) {
        if (answer.empty()) {
            if (!forwardOne(parameters, pair, state)) return {};
        } else {
            // The source is the same: only the decoder reads the longer prefix.
            packBatch(parameters.spec, batch, state.batch);
            decoderForward(parameters, state);
        }
        Index next = 0;
        state.logits.view().row(state.logits.rows - 1).maxCoeff(&next);
        answer.push_back(static_cast<std::int32_t>(next));
        if (next == eos) break;
        pair.targetInput.push_back(static_cast<std::int32_t>(next));
        pair.targetOutput.push_back(-1);
    }
    return answer;
}

}  // namespace qkv
