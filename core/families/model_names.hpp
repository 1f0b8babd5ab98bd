#pragma once
// What a model is called, as its config.json says: model_type "qwen3" is "Qwen3", "mistral" is
// "Mistral", "gemma3_text" is "Gemma 3". Several models share one family row (Mistral and Qwen2
// run on LLaMA's row, XLM-RoBERTa on RoBERTa's): the row's name (familyName) says how the app runs
// the model and stays the export's `family`; this one names the model itself for people (the
// Model tab, the layer list, the export's `model.name`).

#include <string>
#include <string_view>

#include "core/families/family.hpp"
#include "core/modelfiles/checkpoint_config.hpp"

namespace qkv {

// The usual spelling of config.json's model_type ("phi3" -> "Phi-3"), or empty for a model_type
// this app has no spelling of.
std::string_view modelTypeDisplayName(std::string_view modelType);

// The model's name: modelTypeDisplayName of its model_type; a model_type without one, as written
// with the family it runs as ("internlm2 (LLaMA-style)"); without a model_type, the family's name.
std::string modelDisplayName(Family family, const CheckpointConfig& config);

}  // namespace qkv
