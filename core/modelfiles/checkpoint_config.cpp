#include "core/modelfiles/checkpoint_config.hpp"

#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

#include "core/modelfiles/checkpoint_json.hpp"

namespace qkv {

namespace {

using Json = nlohmann::json;

constexpr std::size_t kMaxConfigBytes = 16u << 20;

// The first of `keys` present: a positive integer, or an error naming the key.
Expected<std::optional<Index>> positiveInteger(const Json& json, const std::vector<std::string_view>& keys,
                                               const std::string& path)
{
    for (std::string_view key : keys) {
        const auto it = json.find(key);
        if (it == json.end() || it->is_null()) continue;
        if (!it->is_number_integer() || it->get<long long>() < 1 || it->get<long long>() > (1LL << 30))
            return Error{path + ": '" + std::string(key) + "' is " + it->dump() + ", not a positive integer"};
        return std::optional<Index>(static_cast<Index>(it->get<long long>()));
    }
    return std::optional<Index>();
}

// The first of `keys` present: an integer >= 0 (pad_token_id may be 0), or an error naming the key.
Expected<std::optional<Index>> nonNegativeInteger(const Json& json, std::string_view key, const std::string& path)
{
    const auto it = json.find(key);
    if (it == json.end() || it->is_null()) return std::optional<Index>();
    if (!it->is_number_integer() || it->get<long long>() < 0 || it->get<long long>() > (1LL << 30))
        return Error{path + ": '" + std::string(key) + "' is " + it->dump() + ", not an integer >= 0"};
    return std::optional<Index>(static_cast<Index>(it->get<long long>()));
}

Expected<std::optional<bool>> boolean(const Json& json, std::string_view key, const std::string& path)
{
    const auto it = json.find(key);
    if (it == json.end() || it->is_null()) return std::optional<bool>();
    if (!it->is_boolean()) return Error{path + ": '" + std::string(key) + "' is " + it->dump() + ", not true or false"};
    return std::optional<bool>(it->get<bool>());
}

// A small positive number (an epsilon): the first of `keys` present.
Expected<std::optional<double>> epsilon(const Json& json, const std::vector<std::string_view>& keys,
                                        const std::string& path)
{
    for (std::string_view key : keys) {
        const auto it = json.find(key);
        if (it == json.end() || it->is_null()) continue;
        if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() <= 0.0 ||
            it->get<double>() >= 1.0)
            return Error{path + ": '" + std::string(key) + "' is " + it->dump() + ", not a number between 0 and 1"};
        return std::optional<double>(it->get<double>());
    }
    return std::optional<double>();
}

// The keys of the whole model's forward pass (core/pretrained).
Status readModelKeys(const Json& json, const std::string& path, CheckpointConfig& config)
{
    const std::pair<std::optional<Index>*, std::vector<std::string_view>> integers[] = {
        {&config.layerCount, {"num_hidden_layers", "n_layer", "n_layers", "num_layers"}},
        {&config.encoderLayerCount, {"encoder_layers"}},
        {&config.decoderLayerCount, {"decoder_layers"}},
        {&config.d_ff, {"intermediate_size", "n_inner", "hidden_dim", "d_ff"}},
        {&config.encoderFfnDim, {"encoder_ffn_dim"}},
        {&config.decoderFfnDim, {"decoder_ffn_dim"}},
        {&config.vocabularySize, {"vocab_size"}},
        {&config.positionCount, {"max_position_embeddings", "n_positions"}},
        {&config.typeVocabularySize, {"type_vocab_size"}},
    };
    for (const auto& [field, keys] : integers) {
        Expected<std::optional<Index>> value = positiveInteger(json, keys, path);
        if (!value) return Error{value.error()};
        *field = *value;
    }
    Expected<std::optional<Index>> pad = nonNegativeInteger(json, "pad_token_id", path);
    if (!pad) return Error{pad.error()};
    config.padTokenId = *pad;
    Expected<std::optional<Index>> start = nonNegativeInteger(json, "decoder_start_token_id", path);
    if (!start) return Error{start.error()};
    config.decoderStartTokenId = *start;
    for (const auto& [field, key] : {std::pair{&config.tieWordEmbeddings, "tie_word_embeddings"},
                                     std::pair{&config.scaleEmbedding, "scale_embedding"}}) {
        Expected<std::optional<bool>> value = boolean(json, key, path);
        if (!value) return Error{value.error()};
        *field = *value;
    }
    // Mistral's sliding window, every layer's. Qwen2 writes one too but uses it only with
    // use_sliding_window, and then only from layer max_window_layers on: not followed.
    Expected<std::optional<Index>> window = positiveInteger(json, {"sliding_window"}, path);
    if (!window) return Error{window.error()};
    Expected<std::optional<bool>> useWindow = boolean(json, "use_sliding_window", path);
    if (!useWindow) return Error{useWindow.error()};
    if (!useWindow->has_value()) config.slidingWindow = *window;
    else if (**useWindow) config.slidingWindowNotApplied = *window;
    Expected<std::optional<double>> rms = epsilon(json, {"rms_norm_eps"}, path);
    if (!rms) return Error{rms.error()};
    config.rmsNormEpsilon = *rms;
    // Gemma's files say both hidden_act and hidden_activation; its MLP reads hidden_activation.
    for (const char* key : {"hidden_activation", "hidden_act", "activation_function", "activation"}) {
        const auto it = json.find(key);
        if (it == json.end() || it->is_null()) continue;
        if (!it->is_string()) return Error{path + ": '" + std::string(key) + "' is " + it->dump() + ", not a name"};
        config.activation = it->get<std::string>();
        config.activationKey = key;
        break;
    }
    if (const auto it = json.find("position_embedding_type"); it != json.end() && !it->is_null()) {
        if (!it->is_string())
            return Error{path + ": 'position_embedding_type' is " + it->dump() + ", not a name"};
        config.positionEmbeddingType = it->get<std::string>();
    }
    return {};
}

// A positive finite number, or an error naming the key.
Expected<std::optional<double>> positiveNumber(const Json& json, std::string_view key, const std::string& path)
{
    const auto it = json.find(key);
    if (it == json.end() || it->is_null()) return std::optional<double>();
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() <= 0.0)
        return Error{path + ": '" + std::string(key) + "' is " + it->dump() + ", not a positive number"};
    return std::optional<double>(it->get<double>());
}

// The keys of the 2024-2026 blocks (core/families/attention_rules.hpp): which layers slide, their rotary,
// their scores' scale and cap, the logits' cap, GPT-NeoX's parallel residual.
Status readBlockKeys(const Json& json, const std::string& path, CheckpointConfig& config)
{
    if (const auto it = json.find("layer_types"); it != json.end() && !it->is_null()) {
        if (!it->is_array()) return Error{path + ": 'layer_types' is " + it->dump() + ", not a list"};
        for (const Json& type : *it) {
            if (!type.is_string()) return Error{path + ": 'layer_types' holds " + type.dump() + ", not a name"};
            config.layerTypes.push_back(type.get<std::string>());
        }
    }
    Expected<std::optional<Index>> pattern = positiveInteger(json, {"sliding_window_pattern"}, path);
    if (!pattern) return Error{pattern.error()};
    config.slidingWindowPattern = *pattern;
    Expected<std::optional<Index>> scalar = positiveInteger(json, {"query_pre_attn_scalar"}, path);
    if (!scalar) return Error{scalar.error()};
    config.queryPreAttnScalar = *scalar;
    const std::pair<std::optional<double>*, std::string_view> numbers[] = {
        {&config.ropeLocalBase, "rope_local_base_freq"},
        {&config.attentionSoftCap, "attn_logit_softcapping"},
        {&config.finalLogitSoftCap, "final_logit_softcapping"},
        {&config.partialRotary, "partial_rotary_factor"},
        {&config.partialRotary, "rotary_pct"},
    };
    for (const auto& [field, key] : numbers) {
        if (field->has_value()) continue;  // partial_rotary_factor before rotary_pct
        Expected<std::optional<double>> value = positiveNumber(json, key, path);
        if (!value) return Error{value.error()};
        *field = *value;
    }
    if (config.partialRotary && *config.partialRotary > 1.0)
        return Error{path + ": the rotated share of a head (partial_rotary_factor / rotary_pct) is " +
                     std::to_string(*config.partialRotary) + ", above 1"};
    if (config.ropeLocalBase && *config.ropeLocalBase <= 1.0)
        return Error{path + ": 'rope_local_base_freq' is " + std::to_string(*config.ropeLocalBase) +
                     ", not a number above 1"};
    // GPT-NeoX calls rope_theta rotary_emb_base.
    if (!config.ropeTheta) {
        Expected<std::optional<double>> base = positiveNumber(json, "rotary_emb_base", path);
        if (!base) return Error{base.error()};
        if (*base && **base <= 1.0) return Error{path + ": 'rotary_emb_base' is not a number above 1"};
        config.ropeTheta = *base;
    }
    Expected<std::optional<bool>> parallel = boolean(json, "use_parallel_residual", path);
    if (!parallel) return Error{parallel.error()};
    config.parallelResidual = *parallel;
    return {};
}

// rope_scaling, or transformers 5's rope_parameters (which also holds rope_theta). A kind the
// forward pass does not apply is kept by name for the loader's notes.
Status readRopeScaling(const Json& json, const std::string& path, CheckpointConfig& config)
{
    for (const char* key : {"rope_parameters", "rope_scaling"}) {
        const auto it = json.find(key);
        if (it == json.end() || it->is_null()) continue;
        const std::string where = path + ": '" + key + "'";
        if (!it->is_object()) return Error{where + " is " + it->dump() + ", not an object"};
        if (const auto theta = it->find("rope_theta"); theta != it->end() && !config.ropeTheta) {
            if (!theta->is_number() || !std::isfinite(theta->get<double>()) || theta->get<double>() <= 1.0)
                return Error{where + "'s rope_theta is " + theta->dump() + ", not a number above 1"};
            config.ropeTheta = theta->get<double>();
        }
        auto type = it->find("rope_type");
        if (type == it->end()) type = it->find("type");  // the older spelling
        if (type == it->end() || type->is_null()) continue;
        if (!type->is_string()) return Error{where + "'s rope_type is " + type->dump() + ", not a name"};
        RopeScaling scaling;
        if (!parseName(kRopeScalingNames, type->get<std::string>(), scaling.kind)) {
            config.ropeScalingNotApplied = type->get<std::string>();
            continue;
        }
        const std::pair<const char*, double*> numbers[] = {
            {"factor", &scaling.factor},
            {"low_freq_factor", &scaling.lowFreqFactor},
            {"high_freq_factor", &scaling.highFreqFactor},
            {"original_max_position_embeddings", &scaling.originalMaxPositions}};
        // linear reads factor; llama3 all four, as Hugging Face requires them.
        const std::size_t needed = scaling.kind == RopeScalingKind::Llama3 ? 4 : scaling.kind == RopeScalingKind::Linear ? 1 : 0;
        for (std::size_t i = 0; i < needed; ++i) {
            const auto value = it->find(numbers[i].first);
            if (value == it->end() || !value->is_number())
                return Error{where + " of rope_type " + type->get<std::string>() + " needs a number '" +
                             numbers[i].first + "'" + (value == it->end() ? "" : ", not " + value->dump())};
            *numbers[i].second = value->get<double>();
        }
        if (const std::string problem = ropeScalingProblem(scaling); !problem.empty())
            return Error{path + ": " + problem};
        config.ropeScaling = scaling;
    }
    return {};
}

}  // namespace

Expected<CheckpointConfig> readCheckpointConfig(const std::string& path)
{
    Expected<Json> json = checkpoint_detail::readJsonObjectFile(path, kMaxConfigBytes);
    if (!json) return Error{json.error()};
    CheckpointConfig config;
    if (const auto it = json->find("model_type"); it != json->end() && it->is_string())
        config.modelType = it->get<std::string>();

    const std::pair<std::optional<Index>*, std::vector<std::string_view>> integers[] = {
        {&config.headCount, {"num_attention_heads", "n_head", "n_heads", "num_heads"}},
        {&config.encoderHeadCount, {"encoder_attention_heads"}},
        {&config.decoderHeadCount, {"decoder_attention_heads"}},
        {&config.keyValueHeadCount, {"num_key_value_heads"}},
        {&config.d_model, {"hidden_size", "n_embd", "d_model", "dim"}},
        {&config.headDim, {"head_dim", "d_kv"}},
    };
    for (const auto& [field, keys] : integers) {
        Expected<std::optional<Index>> value = positiveInteger(*json, keys, path);
        if (!value) return Error{value.error()};
        *field = *value;
    }
    if (const auto it = json->find("rope_theta"); it != json->end() && !it->is_null()) {
        if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() <= 1.0)
            return Error{path + ": 'rope_theta' is " + it->dump() + ", not a number above 1"};
        config.ropeTheta = it->get<double>();
    }
    Expected<std::optional<double>> layerNorm = epsilon(*json, {"layer_norm_eps", "layer_norm_epsilon"}, path);
    if (!layerNorm) return Error{layerNorm.error()};
    config.layerNormEpsilon = *layerNorm;
    if (Status s = readModelKeys(*json, path, config); !s) return Error{s.error()};
    if (Status s = readRopeScaling(*json, path, config); !s) return Error{s.error()};
    if (Status s = readBlockKeys(*json, path, config); !s) return Error{s.error()};
    return config;
}

}  // namespace qkv
