#include "core/checkpoint/checkpoint_config.hpp"

#include <cmath>
#include <utility>
#include <vector>
#include <string_view>

#include "core/checkpoint/checkpoint_json.hpp"

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
        {&config.d_kv, {"d_kv"}},
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
    for (const char* key : {"layer_norm_eps", "layer_norm_epsilon"}) {
        const auto it = json->find(key);
        if (it == json->end() || it->is_null()) continue;
        if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() <= 0.0 || it->get<double>() >= 1.0)
            return Error{path + ": '" + key + "' is " + it->dump() + ", not a number between 0 and 1"};
        config.layerNormEpsilon = it->get<double>();
        break;
    }
    if (const auto it = json->find("rope_scaling"); it != json->end() && !it->is_null()) config.ropeScaling = true;
    return config;
}

}  // namespace qkv
