#pragma once
// A checkpoint's config.json: the keys the layer loader follows (docs/checkpoints.md).
//
// Hugging Face families spell the same fact differently:
//   h        num_attention_heads (BERT, LLaMA), n_head (GPT-2), n_heads (DistilBERT),
//            num_heads (T5); encoder_attention_heads / decoder_attention_heads (BART, Marian)
//   g        num_key_value_heads (LLaMA-style; absent: g = h)
//   d_model  hidden_size, n_embd, d_model, dim
//   T5       d_kv (the per-head width; h d_kv must equal d_model here)
//   rotary   rope_theta (default 10000); rope_scaling is reported, not applied
//   input    layer_norm_eps (BERT, default 1e-12), layer_norm_epsilon (GPT-2, default 1e-5):
//            the LayerNorm of the model's own first-layer input (model_input_loading.hpp)

#include <optional>
#include <string>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"

namespace qkv {

struct CheckpointConfig {
    std::string modelType;                  // model_type, or empty
    std::optional<Index> headCount;         // the family's plain h key
    std::optional<Index> encoderHeadCount;  // encoder_attention_heads
    std::optional<Index> decoderHeadCount;  // decoder_attention_heads
    std::optional<Index> keyValueHeadCount; // num_key_value_heads
    std::optional<Index> d_model;
    std::optional<Index> d_kv;              // T5
    std::optional<double> ropeTheta;
    bool ropeScaling = false;               // rope_scaling present and not null
    std::optional<double> layerNormEpsilon; // layer_norm_eps or layer_norm_epsilon
};

// Reads and checks a config.json (size-capped, JSON nesting bounded, each followed key of the
// right type and positive). Unknown keys are ignored.
Expected<CheckpointConfig> readCheckpointConfig(const std::string& path);

}  // namespace qkv
