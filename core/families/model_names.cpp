#include "core/families/model_names.hpp"

#include <array>
#include <utility>

namespace qkv {

namespace {

// model_type as transformers writes it -> the name its authors give the model.
constexpr std::array<std::pair<std::string_view, std::string_view>, 31> kModelTypeNames{{
    {"bert", "BERT"},
    {"roberta", "RoBERTa"},
    {"xlm-roberta", "XLM-RoBERTa"},
    {"distilbert", "DistilBERT"},
    {"gpt2", "GPT-2"},
    {"llama", "LLaMA"},
    {"mistral", "Mistral"},
    {"mixtral", "Mixtral"},
    {"qwen2", "Qwen2"},
    {"qwen3", "Qwen3"},
    {"gemma", "Gemma"},
    {"gemma2", "Gemma 2"},
    {"gemma3", "Gemma 3"},
    {"gemma3_text", "Gemma 3"},
    {"phi", "Phi"},
    {"phi3", "Phi-3"},
    {"gpt_neox", "GPT-NeoX"},
    {"olmo", "OLMo"},
    {"olmo2", "OLMo 2"},
    {"bart", "BART"},
    {"marian", "Marian"},
    {"t5", "T5"},
    {"granite", "Granite"},
    {"smollm3", "SmolLM3"},
    {"internlm2", "InternLM2"},
    {"yi", "Yi"},
    {"deepseek", "DeepSeek"},
    {"starcoder2", "StarCoder2"},
    {"stablelm", "StableLM"},
    {"cohere", "Command R"},
    {"falcon", "Falcon"},
}};

}  // namespace

std::string_view modelTypeDisplayName(std::string_view modelType)
{
    for (const auto& [type, name] : kModelTypeNames)
        if (type == modelType) return name;
    return {};
}

std::string modelDisplayName(Family family, const CheckpointConfig& config)
{
    if (const std::string_view name = modelTypeDisplayName(config.modelType); !name.empty()) return std::string(name);
    if (config.modelType.empty()) return std::string(familyName(family));
    return config.modelType + " (" + std::string(familyName(family)) + ")";
}

}  // namespace qkv
