#include "core/checkpoint/layer_loading.hpp"

#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "core/checkpoint/layer_recognition.hpp"
#include "core/common/limits.hpp"
#include "core/families/attention_rules.hpp"
#include "core/families/family_table.hpp"
#include "core/io/weights_file.hpp"
#include "core/modelfiles/tensor_reading.hpp"

namespace qkv::checkpoint_detail {

namespace {

constexpr std::array<Projection, 4> kProjections = {Projection::Query, Projection::Key, Projection::Value,
                                                    Projection::Output};

// What every shape must be; the error says which tensor is what and what was expected.
struct ShapeCheck {
    const Checkpoint& checkpoint;
    std::string problem;

    void expect(const std::string& name, std::vector<std::size_t> expected, const std::string& why)
    {
        if (!problem.empty() || !checkpoint.tensors.contains(name)) return;
        const CheckpointTensor& tensor = checkpoint.tensors.at(name);
        if (tensor.shape != expected)
            problem = tensor.file + ": tensor '" + name + "' is " + shapeText(tensor.shape) + ", expected " +
                      shapeText(expected) + " (" + why + ")";
    }
};

struct Sizes {
    Index d_model = 0, headCount = 0, d_k = 0, keyValueWidth = 0, keyValueHeadCount = 0;
    Index queryWidth() const { return headCount * d_k; }  // h d_k
};

bool rotaryFamily(Family family) { return layerFamilyRow(family).positions == PretrainedPositions::Rotary; }

// d_model and h d_k from the query weight, h from the layer, g d_k from the key weight, checked.
// d_k is the query weight's rows / h: d_model / h in most families, the model's own head_dim
// (d_kv in T5) in others, where config.json must agree.
Expected<Sizes> layerSizes(const Checkpoint& checkpoint, const CheckpointLayer& layer)
{
    const std::string query = weightName(layer.family, layer.name, Projection::Query);
    const CheckpointTensor& q = checkpoint.tensors.at(query);
    const std::string where = q.file + ": layer '" + layer.name + "': ";
    if (q.shape.size() != 2 || q.shape[0] == 0 || q.shape[1] == 0)
        return Error{q.file + ": tensor '" + query + "' is " + shapeText(q.shape) + ", not a matrix"};
    Sizes s;
    const bool conv1d = qkvStorage(layer.family) == QkvStorage::Conv1DFused;
    const bool fused = fusedQueryKeyValue(layer.family);
    s.d_model = static_cast<Index>(conv1d ? q.shape[0] : q.shape[1]);
    // h d_k: a Linear's rows; GPT-2's Conv1D c_attn is d_model x 3 d_model, whose heads are d_model / h;
    // a fused Q-K-V Linear's share of its rows (fusedQueryKeyValueWidths).
    Index queryWidth = static_cast<Index>(q.shape[0]);
    if (fused) {
        Expected<std::pair<Index, Index>> widths =
            fusedQueryKeyValueWidths(layer.family, layer.headCount, s.d_model, queryWidth, checkpoint.config);
        if (!widths) return Error{where + "'" + query + "' has " + widths.error()};
        queryWidth = widths->first;
        s.keyValueWidth = widths->second;
    }
    if (checkpoint.config.d_model && *checkpoint.config.d_model != s.d_model)
        return Error{where + "'" + query + "' gives d_model = " + std::to_string(s.d_model) + " but " +
                     checkpoint.configPath + " says " + std::to_string(*checkpoint.config.d_model)};
    s.headCount = layer.headCount;
    if (s.headCount < 1 || queryWidth % s.headCount != 0)
        return Error{where + "h = " + std::to_string(s.headCount) + " heads do not divide the " +
                     std::to_string(queryWidth) + " rows of '" + query + "' (h d_k)"};
    s.d_k = queryWidth / s.headCount;
    if (checkpoint.config.headDim && *checkpoint.config.headDim != s.d_k)
        return Error{where + "'" + query + "' gives d_k = " + std::to_string(queryWidth) + " / h = " +
                     std::to_string(s.d_k) + " but " + checkpoint.configPath + " says " +
                     std::string(layerFamilyRow(layer.family).headDimKey) + " = " +
                     std::to_string(*checkpoint.config.headDim)};
    if (s.queryWidth() > limits::maxQueryWidth || s.d_k > limits::maxHeadDim)
        return Error{where + "h d_k = " + std::to_string(s.queryWidth()) + " is beyond this app's limit of " +
                     std::to_string(limits::maxQueryWidth)};
    if (!fused) s.keyValueWidth = s.d_model;
    if (!conv1d && !fused) {
        const std::string key = weightName(layer.family, layer.name, Projection::Key);
        const CheckpointTensor& k = checkpoint.tensors.at(key);
        if (k.shape.size() != 2 || k.shape[1] != static_cast<std::size_t>(s.d_model) || k.shape[0] == 0)
            return Error{k.file + ": tensor '" + key + "' is " + shapeText(k.shape) + ", expected g d_k x " +
                         std::to_string(s.d_model) + " (d_model = " + std::to_string(s.d_model) + ")"};
        s.keyValueWidth = static_cast<Index>(k.shape[0]);
    }
    if (s.keyValueWidth % s.d_k != 0)
        return Error{where + "the key projection has " + std::to_string(s.keyValueWidth) +
                     " rows, not a multiple of d_k = " + std::to_string(s.d_k)};
    s.keyValueHeadCount = s.keyValueWidth / s.d_k;
    if (s.headCount % s.keyValueHeadCount != 0)
        return Error{where + "g = " + std::to_string(s.keyValueHeadCount) +
                     " key/value heads do not divide h = " + std::to_string(s.headCount)};
    if (checkpoint.config.keyValueHeadCount && *checkpoint.config.keyValueHeadCount != s.keyValueHeadCount)
        return Error{where + "the key projection gives g = " + std::to_string(s.keyValueHeadCount) + " but " +
                     checkpoint.configPath + " says num_key_value_heads = " +
                     std::to_string(*checkpoint.config.keyValueHeadCount)};
    if (rotaryFamily(layer.family) && s.d_k % 2 != 0)
        return Error{where + "rotary positions need an even d_k, and d_k = " + std::to_string(s.d_k)};
    return s;
}

std::string expectShapes(const Checkpoint& checkpoint, const CheckpointLayer& layer, const Sizes& s)
{
    const auto d = static_cast<std::size_t>(s.d_model);
    const auto kv = static_cast<std::size_t>(s.keyValueWidth);
    const auto qw = static_cast<std::size_t>(s.queryWidth());
    ShapeCheck check{checkpoint, {}};
    const std::string dText = "d_model = " + std::to_string(d);
    if (qkvStorage(layer.family) == QkvStorage::Conv1DFused) {
        check.expect(weightName(layer.family, layer.name, Projection::Query), {d, 3 * d}, "Conv1D, " + dText);
        check.expect(biasName(layer.family, layer.name, Projection::Query), {3 * d}, dText);
        check.expect(weightName(layer.family, layer.name, Projection::Output), {d, d}, dText);
        check.expect(biasName(layer.family, layer.name, Projection::Output), {d}, dText);
        return check.problem;
    }
    const std::string kvText = dText + ", g d_k = " + std::to_string(kv);
    const std::string qText = dText + ", h d_k = " + std::to_string(qw);
    if (fusedQueryKeyValue(layer.family)) {
        const std::string fusedText = qText + " and g d_k = " + std::to_string(kv) + " fused";
        check.expect(weightName(layer.family, layer.name, Projection::Query), {qw + 2 * kv, d}, fusedText);
        check.expect(biasName(layer.family, layer.name, Projection::Query), {qw + 2 * kv}, fusedText);
        check.expect(weightName(layer.family, layer.name, Projection::Output), {d, qw}, qText);
        check.expect(biasName(layer.family, layer.name, Projection::Output), {d}, dText);
        return check.problem;
    }
    check.expect(weightName(layer.family, layer.name, Projection::Value), {kv, d}, kvText);
    check.expect(weightName(layer.family, layer.name, Projection::Output), {d, qw}, qText);
    check.expect(biasName(layer.family, layer.name, Projection::Query), {qw}, qText);
    check.expect(biasName(layer.family, layer.name, Projection::Key), {kv}, kvText);
    check.expect(biasName(layer.family, layer.name, Projection::Value), {kv}, kvText);
    check.expect(biasName(layer.family, layer.name, Projection::Output), {d}, dText);
    return check.problem;
}

// The attention module's q and k norm scales its layer family names (Qwen3's q_norm, k_norm), or
// empty names.
std::array<std::string, 2> queryKeyNormNames(const CheckpointLayer& layer)
{
    const auto& modules = layerFamilyRow(layer.family).attention.qkNorms;
    if (modules[0].empty()) return {};
    return {layer.name + "." + std::string(modules[0]) + ".weight", layer.name + "." + std::string(modules[1]) + ".weight"};
}

// Our layout from the loaded tensors; missing biases (when some exist) are zeros.
AttentionWeights toOurLayout(const CheckpointLayer& layer, LoadedTensors& loaded, const Sizes& s,
                             std::vector<std::string>& notes)
{
    AttentionWeights weights;
    // Moved out, not copied: a block read again (OneBlockAtATime) reuses its memory (tensor_reading.hpp).
    const auto weight = [&](Projection p) -> MatrixF& { return loaded.at(weightName(layer.family, layer.name, p)); };
    if (qkvStorage(layer.family) == QkvStorage::Conv1DFused) {
        const MatrixF fused = weight(Projection::Query);  // d_model x 3 d_model, x W form
        weights.queryProjection = fused.middleCols(0, s.d_model);
        weights.keyProjection = fused.middleCols(s.d_model, s.d_model);
        weights.valueProjection = fused.middleCols(2 * s.d_model, s.d_model);
        weights.outputProjection = weight(Projection::Output);
    } else if (fusedQueryKeyValue(layer.family)) {  // one nn.Linear: Q's, K's and V's rows (fusedRows)
        const MatrixF& fused = weight(Projection::Query);  // read transposed: d_model x (h d_k + 2 g d_k)
        const auto part = [&](Projection p) {
            return MatrixF(fused(Eigen::all, fusedRows(layer.family, p, s.headCount, s.keyValueHeadCount, s.d_k)));
        };
        weights.queryProjection = part(Projection::Query);
        weights.keyProjection = part(Projection::Key);
        weights.valueProjection = part(Projection::Value);
        weights.outputProjection = weight(Projection::Output);
    } else {  // nn.Linear: out x in in the file, read transposed into x W form
        weights.queryProjection = std::move(weight(Projection::Query));
        weights.keyProjection = std::move(weight(Projection::Key));
        weights.valueProjection = std::move(weight(Projection::Value));
        weights.outputProjection = std::move(weight(Projection::Output));
    }
    const std::array<Index, 4> widths = {s.queryWidth(), s.keyValueWidth, s.keyValueWidth, s.d_model};
    std::array<std::optional<RowVectorF>, 4> biases;
    std::vector<std::string> filled;
    bool any = false;
    for (std::size_t i = 0; i < 4; ++i) {
        const std::string name = biasName(layer.family, layer.name, kProjections[i]);
        if (const auto it = loaded.find(name); it != loaded.end()) {
            any = true;
            const RowVectorF row = asRow(it->second);
            if (qkvStorage(layer.family) == QkvStorage::Conv1DFused && i < 3) biases[i] = RowVectorF(row.segment(Index(i) * s.d_model, s.d_model));
            else if (fusedQueryKeyValue(layer.family) && i < 3)
                biases[i] = RowVectorF(row(fusedRows(layer.family, kProjections[i], s.headCount, s.keyValueHeadCount, s.d_k)));
            else biases[i] = row;
        }
    }
    if (any) {
        for (std::size_t i = 0; i < 4; ++i)
            if (!biases[i]) {
                biases[i] = RowVectorF::Zero(widths[i]);
                filled.push_back(biasName(layer.family, layer.name, kProjections[i]));
            }
        weights.queryBias = biases[0];
        weights.keyBias = biases[1];
        weights.valueBias = biases[2];
        weights.outputBias = biases[3];
    }
    if (!filled.empty()) {
        std::string names;
        for (const std::string& name : filled) names += (names.empty() ? "'" : ", '") + name + "'";
        notes.push_back("The checkpoint has no " + names + ": zeros stand in (biases are all present or all absent here).");
    }
    return weights;
}

// The family names the kind of BERT, DistilBERT, GPT-2 and LLaMA-style layers; the module path
// names it for the others ("decoder", "encoder_attn", "EncDecAttention", ...).
std::string modeFixedBy(const CheckpointLayer& layer)
{
    if (layerFamilyRow(layer.family).attention.kind != LayerKindRule::FromPath)
        return "the family (" + std::string(layerFamilyName(layer.family)) + ")";
    return "the module path '" + layer.name + "'";
}

CheckpointLayerSettings settingsFor(const Checkpoint& checkpoint, const CheckpointLayer& layer, const Sizes& s,
                                    bool withBias, std::vector<std::string>& notes)
{
    CheckpointLayerSettings settings;
    settings.d_model = s.d_model;
    settings.headCount = s.headCount;
    settings.keyValueHeadCount = s.keyValueHeadCount;
    settings.d_k = s.d_k;
    settings.withBias = withBias;
    settings.mode = layer.kind;
    settings.fixedBy = {{LayerSetting::Mode, modeFixedBy(layer)},
                        {LayerSetting::DModel, "the layer's shape"},
                        {LayerSetting::KeyValueHeads, "the layer's shape"},
                        {LayerSetting::HeadDim, "the layer's shape"},
                        {LayerSetting::Bias, "the layer"}};
    if (checkpoint.headCountFromConfig) settings.fixedBy[LayerSetting::Heads] = "config.json";
    setCheckpointLayerPositions(checkpoint, layer, settings);
    const FamilyRow& row = layerFamilyRow(layer.family);
    const std::string name(row.name);
    if (row.positions == PretrainedPositions::Rotary) {
        if (const std::string note = ropeScalingNote(checkpoint); !note.empty()) notes.push_back(note);
        for (std::string& note : layerConventionNotes(checkpoint, settings)) notes.push_back(std::move(note));
    }
    if (!row.scaleScores) {
        settings.scaleScores = false;
        notes.push_back(name + " does not scale scores by 1/sqrt(d_k); neither does this layer now.");
    }
    if (row.relativePositionBias) notes.push_back(name + "'s relative position bias (added to the scores) is left out.");
    if (row.storesNoMask)
        notes.push_back("nn.MultiheadAttention stores no mask: the kind (" + std::string(modeName(layer.kind)) +
                        ") is read from the module path '" + layer.name + "'.");
    if (!checkpoint.headCountFromConfig)
        notes.push_back("No config.json gives the number of heads: h = " + std::to_string(s.headCount) + ".");
    return settings;
}

// nn.MultiheadAttention: its one converter (core/io/weights_file) reads the file that holds the
// layer, that layer's tensors only; h is not stored, so it comes from the layer (asked for).
Expected<CheckpointLayerWeights> loadMultiheadAttentionLayer(const Checkpoint& checkpoint, const CheckpointLayer& layer)
{
    auto anchor = checkpoint.tensors.find(weightName(layer.family, layer.name, Projection::Query));
    if (anchor == checkpoint.tensors.end())
        anchor = checkpoint.tensors.find(separateQueryWeightName(layer.name));
    if (anchor == checkpoint.tensors.end())
        return Error{checkpoint.path + ": layer '" + layer.name + "' lacks '" +
                     weightName(layer.family, layer.name, Projection::Query) + "'"};
    Expected<AttentionWeights> weights = loadAttentionWeights(anchor->second.file, layer.name);
    if (!weights) return Error{weights.error()};
    Sizes s;
    s.d_model = weights->d_model();
    s.headCount = layer.headCount;
    const std::string where = anchor->second.file + ": layer '" + layer.name + "': ";
    if (s.headCount < 1 || s.d_model % s.headCount != 0)
        return Error{where + "h = " + std::to_string(s.headCount) + " heads do not divide d_model = " +
                     std::to_string(s.d_model)};
    s.d_k = s.d_model / s.headCount;
    s.keyValueWidth = s.d_model;
    s.keyValueHeadCount = s.headCount;
    CheckpointLayerWeights result;
    result.layer = layer;
    result.layer.d_model = s.d_model;
    result.layer.keyValueHeadCount = s.keyValueHeadCount;
    result.weights = std::move(*weights);
    if (const std::string problem = result.weights.shapeProblem(s.headCount); !problem.empty())
        return Error{where + problem};
    result.settings = settingsFor(checkpoint, layer, s, result.weights.hasBias(), result.notes);
    return result;
}

}  // namespace

Expected<CheckpointLayerWeights> loadLayer(const Checkpoint& checkpoint, const CheckpointLayer& layer)
{
    if (qkvStorage(layer.family) == QkvStorage::InProjFused) return loadMultiheadAttentionLayer(checkpoint, layer);
    // 1. Every weight must be there; biases are optional.
    std::set<std::string> names;
    std::vector<std::string> missing;
    for (Projection p : kProjections) {
        const std::string weight = weightName(layer.family, layer.name, p);
        if (checkpoint.tensors.contains(weight)) names.insert(weight);
        else if (std::find(missing.begin(), missing.end(), weight) == missing.end()) missing.push_back(weight);
        const std::string bias = biasName(layer.family, layer.name, p);
        if (checkpoint.tensors.contains(bias)) names.insert(bias);
    }
    // Norms of q and k (Qwen3, Gemma 3, OLMo 2: QueryKeyNorm), by the layer family's names: read when
    // the file has them.
    const std::array<std::string, 2> norms = queryKeyNormNames(layer);
    const bool normed = !norms[0].empty() && checkpoint.tensors.contains(norms[0]) && checkpoint.tensors.contains(norms[1]);
    if (normed) {
        for (const std::string& norm : norms)
            if (checkpoint.tensors.at(norm).shape.size() != 1)
                return Error{checkpoint.path + ": '" + norm + "' must be a vector (one scale per component of q or k)"};
        names.insert(norms.begin(), norms.end());
    }
    if (!missing.empty()) {
        std::string list;
        for (const std::string& name : missing) list += (list.empty() ? "'" : ", '") + name + "'";
        return Error{checkpoint.path + ": layer '" + layer.name + "' (" +
                     std::string(layerFamilyName(layer.family)) + ") lacks " + list};
    }
    // 2. Sizes and every shape, from the headers, before any byte is read.
    Expected<Sizes> sizes = layerSizes(checkpoint, layer);
    if (!sizes) return Error{sizes.error()};
    if (rotaryFamily(layer.family))
        if (Expected<AttentionConventions> own =
                layerAttentionConventions(checkpoint.config, blockNumberOf(layer.name), sizes->d_k);
            !own)
            return Error{checkpoint.path + ": layer '" + layer.name + "': " + own.error()};
    if (std::string problem = expectShapes(checkpoint, layer, *sizes); !problem.empty()) return Error{problem};
    // 3. The layer's bytes only, then our layout.
    // nn.Linear weights (every family here but GPT-2's Conv1D) come transposed, in x W form.
    std::set<std::string> linear;
    if (qkvStorage(layer.family) != QkvStorage::Conv1DFused)
        for (Projection p : kProjections) linear.insert(weightName(layer.family, layer.name, p));
    Expected<LoadedTensors> loaded = readTensors(checkpoint.tensors, names, linear);
    if (!loaded) return Error{loaded.error()};
    CheckpointLayerWeights result;
    result.layer = layer;
    result.layer.keyValueHeadCount = sizes->keyValueHeadCount;
    result.weights = toOurLayout(layer, *loaded, *sizes, result.notes);
    if (normed) {
        // Gemma stores w with a scale of 1 + w (core/families/attention_rules.hpp); the weights hold the scale.
        const float offset = normWeightOffset(checkpoint.config);
        result.weights.queryNorm = RowVectorF(asRow(loaded->at(norms[0])).array() + offset);
        result.weights.keyNorm = RowVectorF(asRow(loaded->at(norms[1])).array() + offset);
        result.weights.queryKeyNormEpsilon = static_cast<float>(checkpoint.config.rmsNormEpsilon.value_or(1e-6));
        const bool whole = result.weights.queryNorm->size() == sizes->queryWidth();
        result.notes.push_back("'" + norms[0] + "' and '" + norms[1] + "' RMS-normalise " +
                               (whole && sizes->headCount > 1 ? "the whole of q and of k (OLMo 2)" : "each head's q and k") +
                               " before the rotation" + (offset != 0.0f ? ", with scales 1 + w (Gemma)" : "") +
                               ", as the views show.");
    }
    if (const std::string problem = result.weights.shapeProblem(sizes->headCount); !problem.empty())
        return Error{checkpoint.path + ": layer '" + layer.name + "': " + problem};
    result.settings = settingsFor(checkpoint, layer, *sizes, result.weights.hasBias(), result.notes);
    return result;
}

}  // namespace qkv::checkpoint_detail
