#pragma once
// The family table's rows as GGUF files name them (llama.cpp's general.architecture and its tensor
// names). A GGUF model is read as the same row's Hugging Face checkpoint: each GGUF tensor takes the
// name the row's patterns give it (family_table.hpp), so the layer loader and the whole model read
// it with no case of their own.
//
// Tensor names (llama.cpp's gguf-py constants), N the block:
//   token_embd.weight  -> model.embed_tokens.weight      output_norm.weight -> model.norm.weight
//   output.weight      -> lm_head.weight                 (absent: the readout is tied)
//   blk.N.attn_norm    -> model.layers.N.input_layernorm
//   blk.N.attn_q / attn_k / attn_v / attn_output -> self_attn.q_proj / k_proj / v_proj / o_proj
//   blk.N.attn_qkv     -> self_attn.qkv_proj (Phi-3)     blk.N.attn_q_norm / attn_k_norm -> self_attn.q_norm / k_norm
//   blk.N.ffn_gate / ffn_up / ffn_down -> mlp.gate_proj / up_proj / down_proj (Phi-3's ffn_up: mlp.gate_up_proj)
//   blk.N.ffn_norm     -> post_attention_layernorm (Gemma: pre_feedforward_layernorm)
//   blk.N.post_attention_norm -> post_attention_layernorm, blk.N.post_ffw_norm -> post_feedforward_layernorm (Gemma)
// each with its .weight or .bias.

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace qkv {

struct GgufArchitectureRow {
    std::string_view architecture;  // general.architecture: "llama", "qwen2", ...
    std::string_view modelType;     // the config.json model_type its row reads ("gemma3_text")
    // llama.cpp's converter stores each head's Q and K rows interleaved for its rotary layout
    // (convert_hf_to_gguf.py's permute: LlamaModel only); reading undoes it.
    bool interleavedQueryKey = false;
    // Gemma's converter stores each RMSNorm's 1 + w where Hugging Face stores w.
    bool normsStoreOnePlusW = false;
    bool gemmaBlock = false;   // ffn_norm is the pre-feed-forward norm, with post norms
    bool fusedGateUp = false;  // Phi-3: ffn_up holds gate and up (mlp.gate_up_proj)
};

inline constexpr std::array<GgufArchitectureRow, 6> kGgufArchitectures{{
    {.architecture = "llama", .modelType = "llama", .interleavedQueryKey = true},
    {.architecture = "qwen2", .modelType = "qwen2"},
    {.architecture = "qwen3", .modelType = "qwen3"},
    {.architecture = "gemma2", .modelType = "gemma2", .normsStoreOnePlusW = true, .gemmaBlock = true},
    {.architecture = "gemma3", .modelType = "gemma3_text", .normsStoreOnePlusW = true, .gemmaBlock = true},
    {.architecture = "phi3", .modelType = "phi3", .fusedGateUp = true},
}};

// The row of a general.architecture, or null.
const GgufArchitectureRow* ggufArchitectureRow(std::string_view architecture);
// "llama, qwen2, qwen3, gemma2, gemma3, phi3" for messages.
std::string ggufArchitectureNames();

// The Hugging Face name of a GGUF tensor for the row, or nullopt for a tensor the model does not
// read (llama.cpp's rope_freqs, for one).
std::optional<std::string> huggingFaceTensorName(const GgufArchitectureRow& row, std::string_view ggufName);

// Whether a Hugging Face name is a norm's weight (a gamma that Gemma's GGUF stores as 1 + w).
bool isNormWeightName(std::string_view huggingFaceName);

}  // namespace qkv
