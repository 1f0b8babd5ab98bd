#include "core/session/config_json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>

#include "core/common/limits.hpp"
#include "core/session/json_fields.hpp"

namespace qkv {

namespace {

using Json = nlohmann::json;

using Reader = JsonFields;

// config.json's own names, so that a model's rope_scaling reads the same in both files.
Json ropeScalingJson(const RopeScaling& s)
{
    Json json = {{"rope_type", std::string(nameOf(kRopeScalingNames, s.kind))}, {"factor", s.factor}};
    if (s.kind == RopeScalingKind::Llama3) {
        json["low_freq_factor"] = s.lowFreqFactor;
        json["high_freq_factor"] = s.highFreqFactor;
        json["original_max_position_embeddings"] = s.originalMaxPositions;
    }
    return json;
}

void readRopeScaling(Reader& in, RopeScaling& scaling)
{
    const Json* v = in.find("rope_scaling");
    if (!v || v->is_null()) return;
    if (!v->is_object()) return in.fail("rope_scaling", "must be an object {rope_type, factor, ...}");
    Reader inner{*v, in.prefix + "rope_scaling.", {}};
    inner.choice("rope_type", scaling.kind, kRopeScalingNames);
    inner.number("factor", scaling.factor);
    inner.number("low_freq_factor", scaling.lowFreqFactor);
    inner.number("high_freq_factor", scaling.highFreqFactor);
    inner.number("original_max_position_embeddings", scaling.originalMaxPositions);
    if (in.error.empty()) in.error = inner.error;
}

void readScales(Reader& in, ProjectionScales& scales)
{
    const Json* v = in.find("scales");
    if (!v) return;
    if (!v->is_object()) return in.fail("scales", "must be an object {W_Q, W_K, W_V, W_O}");
    Reader inner{*v, in.prefix + "scales.", {}};
    inner.number("W_Q", scales.query);
    inner.number("W_K", scales.key);
    inner.number("W_V", scales.value);
    inner.number("W_O", scales.output);
    if (in.error.empty()) in.error = inner.error;
}

void readPresets(Reader& in, std::vector<HeadPreset>& presets)
{
    const Json* v = in.find("presets");
    if (!v) return;
    if (!v->is_array()) return in.fail("presets", "must be a list of {head, name, sharpness, rank}");
    presets.clear();
    for (std::size_t i = 0; i < v->size() && in.error.empty(); ++i) {
        const Json& item = (*v)[i];
        const std::string where = "presets[" + std::to_string(i) + "]";
        if (!item.is_object()) return in.fail(where.c_str(), "must be an object {head, name, sharpness, rank}");
        Reader inner{item, in.prefix + where + ".", {}};
        HeadPreset preset;
        Index head = 0;
        inner.integer("head", head, 1, 1 << 20);
        preset.head = head - 1;
        std::string name;
        inner.text("name", name);
        if (inner.error.empty() && !parseName(kHeadPresetNames, name, preset.kind))
            inner.fail("name", "'" + name + "' is not a preset name (" + allowedNames(kHeadPresetNames) + ")");
        inner.number("sharpness", preset.sharpness);
        inner.integer("rank", preset.rank, 1, 1 << 20);
        if (!inner.error.empty()) return void(in.error = inner.error);
        if (head < 1) return in.fail(where.c_str(), "needs a head, numbered from 1");
        presets.push_back(preset);
    }
}

void readAblations(Reader& in, std::vector<Index>& ablated)
{
    const Json* v = in.find("ablated_heads");
    if (!v) return;
    if (!v->is_array()) return in.fail("ablated_heads", "must be a list of head numbers (from 1)");
    ablated.clear();
    for (const Json& item : *v) {
        if (!item.is_number_integer() || item.get<long long>() < 1 || item.get<long long>() > (1 << 20))
            return in.fail("ablated_heads", "must hold head numbers from 1");
        ablated.push_back(static_cast<Index>(item.get<long long>() - 1));
    }
    std::sort(ablated.begin(), ablated.end());
    ablated.erase(std::unique(ablated.begin(), ablated.end()), ablated.end());
}

// A float as the double with the shortest text that reads back to the same float (0.1f is
// written 0.1, not 0.10000000149011612).
double shortest(float value)
{
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    double result = 0.0;
    std::from_chars(text, end, result);
    return result;
}

}  // namespace

Json configToJson(const Config& c)
{
    Json json = Json::object();
    json["mode"] = modeName(c.mode);
    json["source"] = c.sourceText;
    json["target"] = c.targetText;
    json["d_model"] = c.d_model;
    json["heads"] = c.headCount;
    json["kv_heads"] = c.g();
    json["d_k"] = c.d_k();
    if (c.headDimSet()) json["head_dim"] = c.headDim;
    json["seed"] = c.seed;
    json["init"] = initName(c.init);
    json["positional"] = positionalName(c.positional);
    json["positional_encoding"] = c.positionalAdded();
    json["rope_base"] = c.conventions.ropeBase;
    if (c.conventions.ropeScaling.kind != RopeScalingKind::None) json["rope_scaling"] = ropeScalingJson(c.conventions.ropeScaling);
    if (c.conventions.slidingWindow > 0) json["sliding_window"] = c.conventions.slidingWindow;
    // A loaded layer's own conventions, under config.json's names where it has them.
    if (c.conventions.rotaryDims > 0) json["rotary_dims"] = c.conventions.rotaryDims;
    if (c.conventions.scoreDim > 0) json["query_pre_attn_scalar"] = c.conventions.scoreDim;
    if (c.conventions.scoreSoftCap > 0.0) json["attn_logit_softcapping"] = c.conventions.scoreSoftCap;
    json["embeddings"] = embeddingsName(c.embeddings);
    json["token_embedding_scale"] = shortest(c.tokenEmbeddingScale);
    json["bias"] = c.withBias;
    json["scale_scores"] = c.scaleScores;
    json["scales"] = {{"W_Q", shortest(c.scales.query)},
                      {"W_K", shortest(c.scales.key)},
                      {"W_V", shortest(c.scales.value)},
                      {"W_O", shortest(c.scales.output)}};
    Json presets = Json::array();
    for (const HeadPreset& p : c.presets) {
        Json item = {{"head", p.head + 1}, {"name", presetName(p.kind)}, {"sharpness", p.sharpness}};
        if (p.kind == HeadPresetKind::LowRank) item["rank"] = p.rank;
        presets.push_back(std::move(item));
    }
    json["presets"] = std::move(presets);
    Json ablated = Json::array();
    for (const Index head : c.ablatedHeads) ablated.push_back(head + 1);
    json["ablated_heads"] = std::move(ablated);
    return json;
}

Expected<Config> configFromJson(const Json& json)
{
    if (!json.is_object()) return Error{"config: must be an object"};
    Config c;
    Reader in{json, "config.", {}};
    in.choice("mode", c.mode, kAttentionModeNames);
    in.text("source", c.sourceText);
    in.text("target", c.targetText);
    // The app's own limits: a message names the d_model the app can compute, not a parser's bound.
    in.integer("d_model", c.d_model, 1, limits::maxDModel);
    in.integer("heads", c.headCount, 1, limits::maxHeads);
    in.integer("kv_heads", c.keyValueHeadCount, 1, limits::maxHeads);
    if (c.keyValueHeadCount == c.headCount) c.keyValueHeadCount = 0;  // g = h is the default
    // "d_k" is written for readers and never read: d_k is d_model / h unless "head_dim" sets it.
    in.integer("head_dim", c.headDim, 1, limits::maxHeadDim);
    in.seed("seed", c.seed);
    in.choice("init", c.init, kWeightInitNames);
    in.choice("positional", c.positional, kPositionalEncodingNames);
    in.number("rope_base", c.conventions.ropeBase);
    readRopeScaling(in, c.conventions.ropeScaling);
    in.integer("sliding_window", c.conventions.slidingWindow, 0, limits::maxTokens);
    in.integer("rotary_dims", c.conventions.rotaryDims, 0, limits::maxHeadDim);
    in.integer("query_pre_attn_scalar", c.conventions.scoreDim, 0, limits::maxQueryWidth);
    in.number("attn_logit_softcapping", c.conventions.scoreSoftCap);
    in.choice("embeddings", c.embeddings, kEmbeddingKindNames);
    in.number("token_embedding_scale", c.tokenEmbeddingScale);
    in.flag("bias", c.withBias);
    in.flag("scale_scores", c.scaleScores);
    readScales(in, c.scales);
    readPresets(in, c.presets);
    readAblations(in, c.ablatedHeads);
    if (!in.error.empty()) return Error{in.error};
    return c;
}

}  // namespace qkv
