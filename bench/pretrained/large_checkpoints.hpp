#pragma once
// Synthetic checkpoints of Llama-3.1-8B's shape for the large-model benchmark (large_model_bench.cpp):
// too large to build in memory as synthetic_checkpoints.cpp does, so written as a stream, one
// tensor at a time, straight to the file.
//
//   bf16 safetensors  a Hugging Face folder (config.json as the Hub's, model.safetensors), every
//                     weight random (uniform, standard deviation 0.02, rounded to bf16), norms 1,
//                     the readout untied (lm_head.weight) as in the real model: ~16 GB
//   Q4_K_M GGUF       llama.cpp's names and metadata for `llama` (rope_freqs for llama3 scaling),
//                     Q4_K blocks for most weights and Q6_K for the readout and for attn_v and
//                     ffn_down of the layers llama.cpp's Q4_K_M gives more bits (the first and
//                     last eighth, every third between), norms F32: ~4.9 GB. The blocks' bytes are
//                     random with small finite f16 scales (d, dmin), so every value is finite.
//
// Symbols: L layers, d = d_model, h heads over g key/value heads, d_k, d_ff, V vocabulary.

#include <string>

#include "bench/pretrained/synthetic_checkpoints.hpp"
#include "core/common/expected.hpp"

namespace qkv::bench {

// Llama-3.1-8B's config.json sizes (32 layers, d_model 4096, 32 heads over 8, d_k 128,
// d_ff 14336, V 128256, 131072 positions), 256 tokens.
inline constexpr SyntheticShape llama31Large{
    "llama-3.1-8b", SyntheticFamily::Llama, 32, 4096, 32, 14336, 128256, 131072, 256, 8, 128, true, false};
// The same description at a size a quick check runs in a second (2 layers, d_model 256).
inline constexpr SyntheticShape llamaTiny{"llama-tiny", SyntheticFamily::Llama, 2, 256, 8, 512, 1024, 4096, 16, 2, 32, true, false};

// The folder <root>/<shape.name> with config.json and model.safetensors (bf16, untied), written
// when absent (model.safetensors last, renamed into place: its presence means the folder is whole).
Expected<std::string> largeSafetensorsCheckpoint(const SyntheticShape& shape, const std::string& root);

// <root>/<shape.name>-q4_k_m.gguf, written when absent (renamed into place when whole).
Expected<std::string> largeGgufCheckpoint(const SyntheticShape& shape, const std::string& root);

}  // namespace qkv::bench
