#pragma once
// Synthetic Hugging Face checkpoints of realistic shape for the whole-model benchmarks: a
// folder with config.json and model.safetensors holding every tensor under the name the Hub's
// files use (bert-base-uncased's BertForMaskedLM, gpt2's GPT2LMHeadModel with bare names and the
// causal-mask buffers h.N.attn.bias), float32, random weights (uniform with the standard
// deviation 0.02 of Hugging Face's initialisation; LayerNorm gamma 1, beta 0).
//
// Symbols: L layers, d = d_model, h heads, d_ff, V vocabulary, P positions.

#include <cstddef>
#include <string>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"

namespace qkv::bench {

enum class SyntheticFamily { Bert, Gpt2 };

struct SyntheticShape {
    const char* name;  // folder name and benchmark argument
    SyntheticFamily family;
    Index layers, d_model, heads, d_ff, vocabulary, positions;
    Index tokens;  // the sentence length the benchmarks run
};

// BERT-base (bert-base-uncased) on 128 tokens and GPT-2 small (gpt2) on 256 tokens.
inline constexpr SyntheticShape bertBase{"bert-base", SyntheticFamily::Bert, 12, 768, 12, 3072, 30522, 512, 128};
inline constexpr SyntheticShape gpt2Small{"gpt2-small", SyntheticFamily::Gpt2, 12, 768, 12, 3072, 50257, 1024, 256};

// Floats of the weights the forward pass keeps (what openPretrainedModel converts; GPT-2's
// attn.bias buffers are stored in the file but not loaded).
std::size_t weightFloats(const SyntheticShape& shape);

// The folder of `shape` under `root`, written there first when it has no model.safetensors yet
// (model.safetensors is written last and atomically: its presence means the folder is whole).
Expected<std::string> syntheticCheckpoint(const SyntheticShape& shape, const std::string& root);

}  // namespace qkv::bench
