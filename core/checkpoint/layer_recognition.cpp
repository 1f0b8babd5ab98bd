#include "core/checkpoint/layer_recognition.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <utility>

namespace qkv::checkpoint_detail {

namespace {

// The projection names after the module path (weights end ".weight", biases ".bias").
std::string_view projectionStem(Family family, Projection projection)
{
    return layerFamilyRow(family).attention.projections[static_cast<std::size_t>(projection)];
}

// A layer family's anchors: its query weight's names after the module path. A name "M<anchor>"
// marks the layer M. nn.MultiheadAttention has one fused in-projection, or separate ones (kdim !=
// embed_dim, which the loader refuses with its reason).
std::vector<std::string> anchorsOf(const FamilyRow& row)
{
    const std::string query(row.attention.projections[0]);
    if (row.attention.storage == QkvStorage::InProjFused) return {"." + query + "_weight", ".q_proj_weight"};
    return {"." + query + ".weight"};
}

std::vector<std::string_view> segments(std::string_view path)
{
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (true) {
        const auto dot = path.find('.', start);
        parts.push_back(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
        if (dot == std::string_view::npos) return parts;
        start = dot + 1;
    }
}

bool hasSegment(std::string_view path, std::string_view segment)
{
    const auto parts = segments(path);
    return std::find(parts.begin(), parts.end(), segment) != parts.end();
}

std::string_view lastSegment(std::string_view path)
{
    const auto dot = path.rfind('.');
    return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

bool isLlamaModelType(std::string_view type)
{
    static const std::set<std::string_view> types = {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3",
                                                     "gemma", "gemma2", "phi3", "olmo", "internlm2", "yi"};
    return types.contains(type);
}

// q_proj / k_proj / v_proj are shared by BART-style and LLaMA-style layers (their rows' query
// names are alike): the output projection's name (out_proj or o_proj) decides, then config's
// model_type, then structure (encoder / decoder stacks are BART's). The one place recognition
// names two families.
Family resolveProjFamily(const CheckpointTensors& tensors, std::string_view module, const CheckpointConfig& config)
{
    const std::string m(module);
    if (tensors.contains(m + ".o_proj.weight")) return Family::Llama;
    if (tensors.contains(m + ".out_proj.weight")) return Family::Bart;
    if (isLlamaModelType(config.modelType)) return Family::Llama;
    if (hasSegment(module, "encoder") || hasSegment(module, "decoder") || lastSegment(module) == "encoder_attn")
        return Family::Bart;
    return Family::Llama;
}

// Self, causal or cross, from the family's rule and where the module sits.
AttentionMode layerKind(Family family, std::string_view module)
{
    switch (layerFamilyRow(family).attention.kind) {
    case LayerKindRule::Self: return AttentionMode::EncoderSelf;
    case LayerKindRule::Causal: return AttentionMode::DecoderCausal;
    case LayerKindRule::FromPath: break;
    }
    // nn.TransformerDecoderLayer calls its cross-attention multihead_attn; nn.MultiheadAttention
    // stores no mask, so a decoder's self-attention is taken to be causal, as it is in use.
    const std::string_view last = lastSegment(module);
    if (last == "encoder_attn" || last == "EncDecAttention" || last == "multihead_attn" || last == "cross_attn")
        return AttentionMode::Cross;
    return hasSegment(module, "decoder") ? AttentionMode::DecoderCausal : AttentionMode::EncoderSelf;
}

// Module paths compared with runs of digits as numbers, so layer 2 lists before layer 10.
bool naturalLess(std::string_view a, std::string_view b)
{
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
            std::size_t ei = i, ej = j;
            while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
            while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
            const auto na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
            const auto ta = na.substr(std::min(na.find_first_not_of('0'), na.size()));
            const auto tb = nb.substr(std::min(nb.find_first_not_of('0'), nb.size()));
            if (ta.size() != tb.size()) return ta.size() < tb.size();
            if (ta != tb) return ta < tb;
            i = ei;
            j = ej;
            continue;
        }
        if (a[i] != b[j]) return a[i] < b[j];
        ++i;
        ++j;
    }
    return a.size() - i < b.size() - j;
}

// A suffix that belongs to the module as a whole segment ("h.0.attn.c_attn.weight" ends with
// ".c_attn.weight"); the module is what comes before, or "" for a bare name.
bool splitModule(std::string_view name, std::string_view suffix, std::string_view& module)
{
    if (name == suffix.substr(1)) {
        module = {};
        return true;
    }
    if (!name.ends_with(suffix)) return false;
    module = name.substr(0, name.size() - suffix.size());
    return true;
}

// Rows (Linear: out x in) or columns of a 2-D tensor, or 0 when it is not 2-D or absent.
std::size_t dimension(const CheckpointTensors& tensors, const std::string& name, std::size_t axis)
{
    const auto it = tensors.find(name);
    if (it == tensors.end() || it->second.shape.size() != 2) return 0;
    return it->second.shape[axis];
}

// d_model and g d_k from the shapes (0 when a tensor is missing or not 2-D).
// The columns of x W^Q, x W^K and the rows they read: d_model, h d_k and g d_k.
struct LayerWidths {
    Index d_model = 0, queryWidth = 0, keyValueWidth = 0;
};

// A fused Q-K-V weight's widths (fusedQueryKeyValueWidths), or none when its rows do not divide.
LayerWidths fusedWidths(const CheckpointLayer& layer, Index rows, const CheckpointConfig& config)
{
    const Expected<std::pair<Index, Index>> widths =
        fusedQueryKeyValueWidths(layer.family, layer.headCount, layer.d_model, rows, config);
    return widths ? LayerWidths{layer.d_model, widths->first, widths->second} : LayerWidths{layer.d_model, 0, 0};
}

LayerWidths layerWidths(const CheckpointTensors& tensors, const CheckpointLayer& layer,
                        const CheckpointConfig& config)
{
    const std::string query = weightName(layer.family, layer.name, Projection::Query);
    if (fusedQueryKeyValue(layer.family)) {
        CheckpointLayer sized = layer;
        sized.d_model = static_cast<Index>(dimension(tensors, query, 1));
        return fusedWidths(sized, static_cast<Index>(dimension(tensors, query, 0)), config);
    }
    if (qkvStorage(layer.family) == QkvStorage::Conv1DFused) {  // Conv1D: d_model x 3 d_model
        const auto d = static_cast<Index>(dimension(tensors, query, 0));
        return {d, d, d};
    }
    if (qkvStorage(layer.family) == QkvStorage::InProjFused) {  // in_proj_weight: 3 d_model x d_model (or q_proj_weight)
        const auto d = static_cast<Index>(
            std::max(dimension(tensors, query, 1), dimension(tensors, separateQueryWeightName(layer.name), 1)));
        return {d, d, d};
    }
    const auto d = static_cast<Index>(dimension(tensors, query, 1));
    const auto queryRows = static_cast<Index>(dimension(tensors, query, 0));
    const auto keyRows = dimension(tensors, weightName(layer.family, layer.name, Projection::Key), 0);
    return {d, queryRows > 0 ? queryRows : d, keyRows > 0 ? static_cast<Index>(keyRows) : d};
}

}  // namespace

namespace {
// nn.MultiheadAttention's own parameters are "in_proj_weight" / "in_proj_bias"; its out_proj
// is an nn.Linear ("out_proj.weight"), as every other family's projections are.
std::string parameterName(Family family, std::string_view module, Projection projection, std::string_view parameter)
{
    const std::string stem(projectionStem(family, projection));
    const bool inProj = qkvStorage(family) == QkvStorage::InProjFused && projection != Projection::Output;
    const char separator = inProj ? '_' : '.';
    const std::string name = stem + separator + std::string(parameter);
    return module.empty() ? name : std::string(module) + "." + name;
}
}  // namespace

std::string weightName(Family family, std::string_view module, Projection projection)
{
    return parameterName(family, module, projection, "weight");
}

std::string biasName(Family family, std::string_view module, Projection projection)
{
    return parameterName(family, module, projection, "bias");
}

std::string separateQueryWeightName(std::string_view module)
{
    return module.empty() ? std::string("q_proj_weight") : std::string(module) + ".q_proj_weight";
}

Index layerHeadCount(const CheckpointLayer& layer, const CheckpointConfig& config, Index defaultHeadCount,
                     bool* fromConfig)
{
    std::optional<Index> configured = config.headCount;
    if (layerFamilyRow(layer.family).headCountPerStack) {
        const bool decoder = hasSegment(layer.name, "decoder");
        if (decoder && config.decoderHeadCount) configured = config.decoderHeadCount;
        if (!decoder && config.encoderHeadCount) configured = config.encoderHeadCount;
    }
    if (fromConfig) *fromConfig = configured.has_value();
    if (configured) return *configured;
    if (defaultHeadCount > 0) return defaultHeadCount;
    return layer.d_model >= 64 && layer.d_model % 64 == 0 ? layer.d_model / 64 : 1;
}

Expected<std::pair<Index, Index>> fusedQueryKeyValueWidths(Family family, Index h, Index d_model, Index rows,
                                                          const CheckpointConfig& config)
{
    if (h < 1) return Error{"no heads"};
    if (qkvStorage(family) == QkvStorage::FusedPerHead) {
        if (rows % (3 * h) != 0)
            return Error{std::to_string(rows) + " rows, not 3 h d_k for h = " + std::to_string(h)};
        return std::pair{rows / 3, rows / 3};
    }
    const Index d_k = config.headDim.value_or(d_model / h);
    const Index rest = rows - h * d_k;
    if (d_k < 1 || rest <= 0 || rest % 2 != 0)
        return Error{std::to_string(rows) + " rows, not h d_k + 2 g d_k for h = " + std::to_string(h) +
                     " and d_k = " + std::to_string(d_k)};
    return std::pair{h * d_k, rest / 2};
}

std::vector<Index> fusedRows(Family family, Projection projection, Index h, Index g, Index d_k)
{
    const auto part = static_cast<Index>(projection);  // Query 0, Key 1, Value 2
    std::vector<Index> rows;
    if (qkvStorage(family) == QkvStorage::FusedPerHead) {  // head i: rows 3 i d_k + [q | k | v]
        for (Index head = 0; head < h; ++head)
            for (Index j = 0; j < d_k; ++j) rows.push_back((3 * head + part) * d_k + j);
        return rows;
    }
    // Phi-3: Q's h d_k rows, then K's g d_k, then V's g d_k.
    const Index first = part == 0 ? 0 : h * d_k + (part - 1) * g * d_k;
    const Index count = part == 0 ? h * d_k : g * d_k;
    for (Index j = 0; j < count; ++j) rows.push_back(first + j);
    return rows;
}

std::vector<CheckpointLayer> recogniseLayers(const CheckpointTensors& tensors,
                                             const CheckpointConfig& config, Index defaultHeadCount)
{
    // Each layer family's anchors, in the table's order.
    std::vector<std::pair<std::string, const FamilyRow*>> anchors;
    for (const FamilyRow& row : kFamilyRows)
        if (row.layers == row.value)
            for (std::string& anchor : anchorsOf(row)) anchors.emplace_back(std::move(anchor), &row);
    std::map<std::string, Family> found;
    for (const auto& [name, tensor] : tensors) {
        for (const auto& [anchor, row] : anchors) {
            std::string_view module;
            if (!splitModule(name, anchor, module)) continue;
            Family family = row->value;
            // T5's ".q.weight" is that family's only when its module says so; Bloom's and Falcon's
            // self_attention.query_key_value are laid out otherwise than GPT-NeoX's attention's.
            const auto& ends = row->attention.moduleEndsIn;
            if (!ends[0].empty() && std::find(ends.begin(), ends.end(), lastSegment(module)) == ends.end()) continue;
            if (family == Family::Llama || family == Family::Bart) family = resolveProjFamily(tensors, module, config);
            found.emplace(std::string(module), family);
            break;
        }
    }
    std::vector<CheckpointLayer> layers;
    for (const auto& [module, family] : found) {
        CheckpointLayer layer;
        layer.name = module;
        layer.family = family;
        layer.kind = layerKind(family, module);
        layers.push_back(std::move(layer));
    }
    std::sort(layers.begin(), layers.end(),
              [](const CheckpointLayer& a, const CheckpointLayer& b) { return naturalLess(a.name, b.name); });
    for (std::size_t i = 0; i < layers.size(); ++i) {
        CheckpointLayer& layer = layers[i];
        layer.index = static_cast<Index>(i);
        layer.d_model = layerWidths(tensors, layer, config).d_model;
        layer.headCount = layerHeadCount(layer, config, defaultHeadCount);
        const LayerWidths widths = layerWidths(tensors, layer, config);
        const Index h = layer.headCount;
        const Index d_k = h > 0 && widths.queryWidth % h == 0 ? widths.queryWidth / h : 0;
        const Index keyValueWidth = widths.keyValueWidth;
        layer.keyValueHeadCount = d_k > 0 && keyValueWidth % d_k == 0 ? keyValueWidth / d_k
                                  : config.keyValueHeadCount ? *config.keyValueHeadCount
                                                             : layer.headCount;
    }
    return layers;
}

}  // namespace qkv::checkpoint_detail
