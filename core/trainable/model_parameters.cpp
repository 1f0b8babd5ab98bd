#include "core/trainable/model_parameters.hpp"

#include <cassert>
#include <cmath>

#include "core/common/random.hpp"

namespace qkv {

namespace {

// Appends tensors to a layout, packing them back to back.
class LayoutBuilder {
public:
    explicit LayoutBuilder(std::vector<TensorSlot>& slots) : slots_(slots) {}

    void add(std::string name, Index rows, Index cols, bool decays)
    {
        TensorSlot slot{std::move(name), rows, cols, offset_, decays};
        offset_ += slot.size();
        slots_.push_back(std::move(slot));
    }
    void addNorm(const ModelSpec& spec, const std::string& prefix)
    {
        if (spec.norm == NormKind::None) return;
        add(prefix + ".gamma", 1, spec.d_model, false);
        add(prefix + ".beta", 1, spec.d_model, false);
    }
    // W_Q, W_K (factored) or W_1 .. W_h (full), then W_V, W_O; no biases.
    void addAttention(const ModelSpec& spec, const std::string& prefix)
    {
        const Index d = spec.d_model;
        if (spec.scoreForm == ScoreForm::Factored) {
            add(prefix + ".W_Q", d, d, true);
            add(prefix + ".W_K", d, d, true);
        } else {
            for (Index head = 1; head <= spec.headCount; ++head) add(prefix + ".W_" + std::to_string(head), d, d, true);
        }
        add(prefix + ".W_V", d, d, true);
        add(prefix + ".W_O", d, d, true);
    }
    void addMlp(const ModelSpec& spec, const std::string& prefix)
    {
        add(prefix + ".W_in", spec.d_model, spec.d_ff, true);
        add(prefix + ".b_in", 1, spec.d_ff, false);
        add(prefix + ".W_out", spec.d_ff, spec.d_model, true);
        add(prefix + ".b_out", 1, spec.d_model, false);
    }

private:
    std::vector<TensorSlot>& slots_;
    std::size_t offset_ = 0;
};

bool hasFinalNorm(const ModelSpec& spec)
{
    return spec.norm != NormKind::None && spec.placement == NormPlacement::Pre;
}

// A tensor's initial values (see ModelParameters::initialised), drawn from its own stream keyed
// by its name: adding a tensor to the model never shifts another tensor's numbers.
template <typename Scalar>
void initialiseTensor(const ModelSpec& spec, const TensorSlot& slot, std::uint64_t seed, Scalar* values)
{
    const std::string& name = slot.name;
    const auto endsWith = [&name](std::string_view tail) {
        return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
    };
    const std::size_t count = slot.size();
    if (endsWith(".gamma")) {
        std::fill(values, values + count, Scalar(1));
        return;
    }
    if (endsWith(".beta") || name.find(".b_") != std::string::npos || name == "readout.b") {
        std::fill(values, values + count, Scalar(0));
        return;
    }
    SplitMix64 stream(hashWithSeed(name, seed));
    const double d_model = static_cast<double>(spec.d_model);
    if (name == "embedding.token" || name == "embedding.position") {
        // Token: N(0, 1/d_model) when scaled by sqrt(d_model), so the scaled vector has unit
        // variance per entry; N(0, 1) otherwise. Learned positions: N(0, 0.02^2) (GPT-2).
        const double deviation = name == "embedding.position" ? 0.02
                                 : spec.scaleEmbedding        ? 1.0 / std::sqrt(d_model)
                                                              : 1.0;
        for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<Scalar>(deviation * stream.normal());
        return;
    }
    // Xavier-uniform (Glorot & Bengio, 2010): a = sqrt(6 / (fan_in + fan_out)). A full head's
    // W_i instead gets the variance of the product W_i^Q (W_i^K)^T of two Xavier factors,
    // d_k / d_model^2, so both score forms start with scores of the same spread.
    const bool fullHead = spec.scoreForm == ScoreForm::Full && name.find("attention.W_") != std::string::npos &&
                          !endsWith(".W_V") && !endsWith(".W_O");
    const double bound = fullHead ? std::sqrt(3.0 * static_cast<double>(spec.d_k())) / d_model
                                  : std::sqrt(6.0 / static_cast<double>(slot.rows + slot.cols));
    for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<Scalar>(stream.uniform(-bound, bound));
}

}  // namespace

std::vector<TensorSlot> tensorLayout(const ModelSpec& spec)
{
    std::vector<TensorSlot> slots;
    if (!spec.problem().empty()) return slots;  // sizes that do not fit together have no layout
    LayoutBuilder layout(slots);
    layout.add("embedding.token", spec.vocabularySize, spec.d_model, false);
    if (spec.positions == PositionKind::Learned) layout.add("embedding.position", spec.maxPositions, spec.d_model, false);
    for (Index l = 0; l < spec.encoderLayers; ++l) {
        const std::string prefix = "encoder." + std::to_string(l);
        layout.addAttention(spec, prefix + ".self_attention");
        layout.addNorm(spec, prefix + ".norm_attention");
        if (spec.d_ff > 0) {
            layout.addMlp(spec, prefix + ".mlp");
            layout.addNorm(spec, prefix + ".norm_mlp");
        }
    }
    for (Index l = 0; l < spec.decoderLayers; ++l) {
        const std::string prefix = "decoder." + std::to_string(l);
        layout.addAttention(spec, prefix + ".self_attention");
        layout.addNorm(spec, prefix + ".norm_self");
        if (spec.hasEncoder()) {
            layout.addAttention(spec, prefix + ".cross_attention");
            layout.addNorm(spec, prefix + ".norm_cross");
        }
        if (spec.d_ff > 0) {
            layout.addMlp(spec, prefix + ".mlp");
            layout.addNorm(spec, prefix + ".norm_mlp");
        }
    }
    if (hasFinalNorm(spec)) {
        if (spec.hasEncoder()) layout.addNorm(spec, "encoder.norm_final");
        layout.addNorm(spec, "decoder.norm_final");
    }
    layout.add("readout.W", spec.d_model, spec.vocabularySize, true);
    layout.add("readout.b", 1, spec.vocabularySize, false);
    return slots;
}

std::vector<AttentionLayerInfo> attentionLayers(const ModelSpec& spec)
{
    std::vector<AttentionLayerInfo> layers;
    for (Index l = 0; l < spec.encoderLayers; ++l)
        layers.push_back({"encoder." + std::to_string(l) + ".self_attention", AttentionMode::EncoderSelf, l});
    for (Index l = 0; l < spec.decoderLayers; ++l) {
        layers.push_back({"decoder." + std::to_string(l) + ".self_attention", AttentionMode::DecoderCausal, l});
        if (spec.hasEncoder())
            layers.push_back({"decoder." + std::to_string(l) + ".cross_attention", AttentionMode::Cross, l});
    }
    return layers;
}

template <typename Scalar>
ModelParameters<Scalar> ModelParameters<Scalar>::zeros(const ModelSpec& spec)
{
    ModelParameters parameters{spec, tensorLayout(spec), {}};
    const std::size_t total = parameters.tensors.empty()
                                  ? 0
                                  : parameters.tensors.back().offset + parameters.tensors.back().size();
    parameters.values.assign(total, Scalar(0));
    return parameters;
}

template <typename Scalar>
ModelParameters<Scalar> ModelParameters<Scalar>::initialised(const ModelSpec& spec, std::uint64_t seed)
{
    ModelParameters parameters = zeros(spec);
    for (const TensorSlot& slot : parameters.tensors)
        initialiseTensor(spec, slot, seed, parameters.values.data() + slot.offset);
    return parameters;
}

template <typename Scalar>
const TensorSlot* ModelParameters<Scalar>::find(const std::string& name) const
{
    for (const TensorSlot& slot : tensors)
        if (slot.name == name) return &slot;
    return nullptr;
}

template <typename Scalar>
typename ModelParameters<Scalar>::Map ModelParameters<Scalar>::tensor(const std::string& name)
{
    const TensorSlot* slot = find(name);
    assert(slot != nullptr && "no tensor of that name in this model");
    return tensor(*slot);
}

template <typename Scalar>
typename ModelParameters<Scalar>::ConstMap ModelParameters<Scalar>::tensor(const std::string& name) const
{
    const TensorSlot* slot = find(name);
    assert(slot != nullptr && "no tensor of that name in this model");
    return tensor(*slot);
}

std::size_t scoreParameterCount(const ModelSpec& spec)
{
    // Per head: W_i^Q and W_i^K, d_model x d_k each, or one W_i, d_model x d_model.
    const std::size_t d = static_cast<std::size_t>(spec.d_model);
    const std::size_t perHead = spec.scoreForm == ScoreForm::Factored ? 2 * d * static_cast<std::size_t>(spec.d_k())
                                                                      : d * d;
    return attentionLayers(spec).size() * static_cast<std::size_t>(spec.headCount) * perHead;
}

std::size_t attentionParameterCount(const ModelSpec& spec)
{
    // The scores' parameters plus W^V and W^O (d_model x d_model each) per attention sublayer.
    const std::size_t d = static_cast<std::size_t>(spec.d_model);
    return scoreParameterCount(spec) + attentionLayers(spec).size() * 2 * d * d;
}

std::optional<AttentionWeights> attentionLayerWeights(const ModelParameters<float>& parameters, Index layer)
{
    const std::vector<AttentionLayerInfo> layers = attentionLayers(parameters.spec);
    if (layer < 0 || layer >= static_cast<Index>(layers.size())) return std::nullopt;
    const std::string& prefix = layers[static_cast<std::size_t>(layer)].name;
    AttentionWeights weights;
    if (parameters.spec.scoreForm == ScoreForm::Full) {
        const Index d = parameters.spec.d_model, h = parameters.spec.headCount;
        weights.queryProjection.resize(d, h * d);  // [W_1 ... W_h]
        weights.keyProjection.resize(d, h * d);    // [I ... I]
        for (Index head = 0; head < h; ++head) {
            weights.queryProjection.middleCols(head * d, d) = parameters.tensor(prefix + ".W_" + std::to_string(head + 1));
            weights.keyProjection.middleCols(head * d, d).setIdentity();
        }
    } else {
        weights.queryProjection = parameters.tensor(prefix + ".W_Q");
        weights.keyProjection = parameters.tensor(prefix + ".W_K");
    }
    weights.valueProjection = parameters.tensor(prefix + ".W_V");
    weights.outputProjection = parameters.tensor(prefix + ".W_O");
    return weights;
}

MatrixD headBilinearForm(const ModelParameters<float>& parameters, Index layer, Index head)
{
    const ModelSpec& spec = parameters.spec;
    const std::vector<AttentionLayerInfo> layers = attentionLayers(spec);
    if (layer < 0 || layer >= static_cast<Index>(layers.size()) || head < 0 || head >= spec.headCount) return {};
    const std::string& prefix = layers[static_cast<std::size_t>(layer)].name;
    if (spec.scoreForm == ScoreForm::Full) return parameters.tensor(prefix + ".W_" + std::to_string(head + 1)).cast<double>();
    const Index d_k = spec.d_k();
    const MatrixD queryHead = parameters.tensor(prefix + ".W_Q").middleCols(head * d_k, d_k).cast<double>();  // d_model x d_k
    const MatrixD keyHead = parameters.tensor(prefix + ".W_K").middleCols(head * d_k, d_k).cast<double>();    // d_model x d_k
    return queryHead * keyHead.transpose();  // W_i = W_i^Q (W_i^K)^T, d_model x d_model
}

template struct ModelParameters<float>;
template struct ModelParameters<double>;

}  // namespace qkv
