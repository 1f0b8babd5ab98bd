#pragma once
// A GGUF file's metadata read into the CheckpointConfig its family's row reads (checkpoint_config.hpp),
// so a GGUF model is described exactly as its config.json would describe it. Keys are llama.cpp's,
// under the architecture's name A (general.architecture):
//   A.block_count -> L        A.embedding_length -> d_model    A.feed_forward_length -> d_ff
//   A.attention.head_count -> h                  A.attention.head_count_kv -> g
//   A.attention.key_length -> d_k (A.attention.value_length must equal it)
//   A.attention.layer_norm_rms_epsilon -> rms_norm_eps          A.context_length -> P
//   A.rope.freq_base -> rope_theta    A.rope.scaling.type linear + A.rope.scaling.factor -> linear
//   scaling (yarn and others are reported, not applied)
//   A.attention.sliding_window -> sliding_window    A.attn_logit_softcapping, A.final_logit_softcapping
//   (Gemma 2) -> the soft caps      tokenizer.ggml.tokens' count -> V
// and what llama.cpp itself fixes for these architectures: Gemma's query_pre_attn_scalar (d_model / h
// for the 27B models, else d_k), Gemma 3's local rotary base (A.rope.freq_base_swa, else 10000) and every sixth layer global.

#include <string_view>

#include "core/common/expected.hpp"
#include "core/gguf/gguf_file.hpp"
#include "core/modelfiles/checkpoint_config.hpp"

namespace qkv {

// The configuration of a GGUF model of `architecture`, with model_type `modelType` (the family
// table's spelling). Refuses a missing or non-positive size key, naming it.
Expected<CheckpointConfig> ggufCheckpointConfig(const GgufFile& file, std::string_view architecture,
                                                std::string_view modelType);

}  // namespace qkv
