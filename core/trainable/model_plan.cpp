// Where a model's tensors and a batch's rows are: the plan resolved once per spec, the batch's
// checks and its packing.

#include <cassert>
#include <string>

#include "core/trainable/model_workspace.hpp"

namespace qkv {

namespace {

std::size_t offsetOf(const std::vector<TensorSlot>& layout, const std::string& name)
{
    for (const TensorSlot& slot : layout)
        if (slot.name == name) return slot.offset;
    assert(false && "tensorLayout and planModel disagree on a tensor's name");
    return 0;
}

SublayerPlan planSublayer(const ModelSpec& spec, const std::vector<TensorSlot>& layout, SublayerKind kind,
                          const std::string& prefix, const std::string& normPrefix, Index attentionLayer)
{
    SublayerPlan plan;
    plan.kind = kind;
    plan.attentionLayer = attentionLayer;
    std::vector<std::string> names;
    if (kind == SublayerKind::Mlp) {
        names = {"W_in", "b_in", "W_out", "b_out"};
    } else {
        if (spec.scoreForm == ScoreForm::Factored) names = {"W_Q", "W_K"};
        else
            for (Index head = 1; head <= spec.headCount; ++head) names.push_back("W_" + std::to_string(head));
        names.push_back("W_V");
        names.push_back("W_O");
    }
    for (const std::string& name : names) plan.weights.push_back(offsetOf(layout, prefix + "." + name));
    plan.hasNorm = spec.norm != NormKind::None;
    if (plan.hasNorm) {
        plan.gamma = offsetOf(layout, normPrefix + ".gamma");
        plan.beta = offsetOf(layout, normPrefix + ".beta");
    }
    return plan;
}

void planFinalNorm(const ModelSpec& spec, const std::vector<TensorSlot>& layout, const std::string& prefix,
                   StackPlan& stack)
{
    stack.hasFinalNorm = spec.norm != NormKind::None && spec.placement == NormPlacement::Pre;
    if (!stack.hasFinalNorm) return;
    stack.finalGamma = offsetOf(layout, prefix + ".gamma");
    stack.finalBeta = offsetOf(layout, prefix + ".beta");
}

std::string idProblem(const std::vector<std::int32_t>& ids, std::int32_t low, Index vocabularySize,
                      const char* what, std::size_t sequence)
{
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] < low || ids[i] >= vocabularySize)
            return "sequence " + std::to_string(sequence) + ": " + what + " id " + std::to_string(ids[i]) +
                   " at position " + std::to_string(i) + " is outside the vocabulary (0.." +
                   std::to_string(vocabularySize - 1) + ")";
    return {};
}

}  // namespace

ModelPlan planModel(const ModelSpec& spec)
{
    const std::vector<TensorSlot> layout = tensorLayout(spec);
    ModelPlan plan;
    plan.spec = spec;
    plan.tokenTable = offsetOf(layout, "embedding.token");
    plan.learnedPositions = spec.positions == PositionKind::Learned;
    if (plan.learnedPositions) plan.positionTable = offsetOf(layout, "embedding.position");
    Index attentionLayer = 0;
    for (Index l = 0; l < spec.encoderLayers; ++l) {
        const std::string prefix = "encoder." + std::to_string(l);
        plan.encoder.sublayers.push_back(planSublayer(spec, layout, SublayerKind::SelfAttention,
                                                      prefix + ".self_attention", prefix + ".norm_attention",
                                                      attentionLayer++));
        if (spec.d_ff > 0)
            plan.encoder.sublayers.push_back(
                planSublayer(spec, layout, SublayerKind::Mlp, prefix + ".mlp", prefix + ".norm_mlp", -1));
    }
    for (Index l = 0; l < spec.decoderLayers; ++l) {
        const std::string prefix = "decoder." + std::to_string(l);
        plan.decoder.sublayers.push_back(planSublayer(spec, layout, SublayerKind::CausalSelfAttention,
                                                      prefix + ".self_attention", prefix + ".norm_self",
                                                      attentionLayer++));
        if (spec.hasEncoder())
            plan.decoder.sublayers.push_back(planSublayer(spec, layout, SublayerKind::CrossAttention,
                                                          prefix + ".cross_attention", prefix + ".norm_cross",
                                                          attentionLayer++));
        if (spec.d_ff > 0)
            plan.decoder.sublayers.push_back(
                planSublayer(spec, layout, SublayerKind::Mlp, prefix + ".mlp", prefix + ".norm_mlp", -1));
    }
    if (spec.hasEncoder()) planFinalNorm(spec, layout, "encoder.norm_final", plan.encoder);
    planFinalNorm(spec, layout, "decoder.norm_final", plan.decoder);
    plan.readoutWeight = offsetOf(layout, "readout.W");
    plan.readoutBias = offsetOf(layout, "readout.b");
    plan.parameterCount = layout.back().offset + layout.back().size();
    return plan;
}

template <typename Scalar>
void ForwardWorkspace<Scalar>::State::prepare(const ModelSpec& spec)
{
    if (planned && plan.spec == spec) return;
    plan = planModel(spec);
    planned = true;
    if (spec.positions == PositionKind::Sinusoidal) sinusoid = sinusoidalPositions<Scalar>(spec.maxPositions, spec.d_model);
    encoder.sublayers.resize(plan.encoder.sublayers.size());
    decoder.sublayers.resize(plan.decoder.sublayers.size());
}

template struct ForwardWorkspace<float>::State;
template struct ForwardWorkspace<double>::State;

std::string batchProblem(const ModelSpec& spec, const std::vector<SequencePair>& batch)
{
    const std::string specProblem = spec.problem();
    if (!specProblem.empty()) return "the model does not fit together: " + specProblem;
    const auto lengthProblem = [&spec](std::size_t length, const char* what, std::size_t sequence) -> std::string {
        if (length >= 1 && static_cast<Index>(length) <= spec.maxPositions) return {};
        return "sequence " + std::to_string(sequence) + ": the " + what + " has " + std::to_string(length) +
               " tokens; the model reads 1 to " + std::to_string(spec.maxPositions);
    };
    for (std::size_t b = 0; b < batch.size(); ++b) {
        const SequencePair& pair = batch[b];
        std::string problem;
        if (spec.hasEncoder()) {
            problem = lengthProblem(pair.source.size(), "source", b);
            if (problem.empty()) problem = idProblem(pair.source, 0, spec.vocabularySize, "source", b);
        }
        if (problem.empty()) problem = lengthProblem(pair.targetInput.size(), "decoder input", b);
        if (problem.empty() && pair.targetOutput.size() != pair.targetInput.size())
            problem = "sequence " + std::to_string(b) + ": " + std::to_string(pair.targetOutput.size()) +
                      " target outputs for " + std::to_string(pair.targetInput.size()) + " decoder inputs";
        if (problem.empty()) problem = idProblem(pair.targetInput, 0, spec.vocabularySize, "decoder input", b);
        if (problem.empty()) problem = idProblem(pair.targetOutput, -1, spec.vocabularySize, "target output", b);
        if (!problem.empty()) return problem;
    }
    return {};
}

void packBatch(const ModelSpec& spec, const std::vector<SequencePair>& batch, PackedBatch& packed)
{
    packed.source.clear();
    packed.target.clear();
    packed.sourceIds.clear();
    packed.targetIds.clear();
    packed.sourcePositions.clear();
    packed.targetPositions.clear();
    packed.labels.clear();
    for (const SequencePair& pair : batch) {
        if (spec.hasEncoder()) {
            packed.source.push_back({packed.sourceRows(), static_cast<Index>(pair.source.size())});
            packed.sourceIds.insert(packed.sourceIds.end(), pair.source.begin(), pair.source.end());
            for (std::size_t i = 0; i < pair.source.size(); ++i) packed.sourcePositions.push_back(static_cast<Index>(i));
        }
        packed.target.push_back({packed.targetRows(), static_cast<Index>(pair.targetInput.size())});
        packed.targetIds.insert(packed.targetIds.end(), pair.targetInput.begin(), pair.targetInput.end());
        packed.labels.insert(packed.labels.end(), pair.targetOutput.begin(), pair.targetOutput.end());
        for (std::size_t i = 0; i < pair.targetInput.size(); ++i) packed.targetPositions.push_back(static_cast<Index>(i));
    }
}

}  // namespace qkv
