#pragma once
// Synthetic Hugging Face checkpoints of realistic shape for the whole-model benchmarks: a
// folder with config.json and model.safetensors holding every tensor under the name the Hub's
// files use (bert-base-uncased's BertForMaskedLM, gpt2's GPT2LMHeadModel with bare names and the
// causal-mask buffers h.N.attn.bias, Qwen3-0.6B's Qwen3ForCausalLM with q_norm and k_norm,
// Llama-3.2-1B's LlamaForCausalLM with rope_scaling llama3; the last two tied and in bf16, as
// the Hub ships them), random weights (uniform with the standard deviation 0.02 of Hugging
// Face's initialisation; norms' gamma 1, beta 0).
//
// Symbols: L layers, d = d_model, h heads, d_ff, V vocabulary, P positions.

#include <cstddef>
#include <string>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/pretrained/pretrained_model.hpp"

namespace qkv::bench {

enum class SyntheticFamily { Bert, Gpt2, Qwen3, Llama };

struct SyntheticShape {
    const char* name;  // folder name and benchmark argument
    SyntheticFamily family;
    Index layers, d_model, heads, d_ff, vocabulary, positions;
    Index tokens;             // the sentence length the benchmarks run
    Index keyValueHeads = 0;  // g; 0: h
    Index headDim = 0;        // d_k; 0: d_model / h
    bool maskBuffers = true;  // GPT-2's h.N.attn.bias (P x P each): 3 GiB at P = 8192, so left out there
    bool tiedReadout = true;  // Qwen3 and Llama: false stores lm_head.weight (V x d_model), as Llama-3.1-8B does
    Index g() const { return keyValueHeads > 0 ? keyValueHeads : heads; }
    Index d_k() const { return headDim > 0 ? headDim : d_model / heads; }
};

// BERT-base (bert-base-uncased) on 128 tokens and GPT-2 small (gpt2) on 256 tokens.
inline constexpr SyntheticShape bertBase{"bert-base", SyntheticFamily::Bert, 12, 768, 12, 3072, 30522, 512, 128};
inline constexpr SyntheticShape gpt2Small{"gpt2-small", SyntheticFamily::Gpt2, 12, 768, 12, 3072, 50257, 1024, 256};
// GPT-2 small's blocks with 8,192 positions (GPT-2 has 1,024), for a long prompt of 8,192 tokens:
// the whole-model limit of a streamed run.
inline constexpr SyntheticShape gpt2Long{
    "gpt2-small-8k", SyntheticFamily::Gpt2, 12, 768, 12, 3072, 50257, 8192, 8192, 0, 0, false};
// Qwen3-0.6B on 256 tokens (d_k 128 > 1024 / 16) and Llama-3.2-1B on 256 tokens: their config.json
// sizes.
inline constexpr SyntheticShape qwen3Small{
    "qwen3-0.6b", SyntheticFamily::Qwen3, 28, 1024, 16, 3072, 151936, 40960, 256, 8, 128};
inline constexpr SyntheticShape llama32Small{
    "llama-3.2-1b", SyntheticFamily::Llama, 16, 2048, 32, 8192, 128256, 131072, 256, 8, 64};

// Floats of the weights the forward pass keeps (what openPretrainedModel converts; GPT-2's
// attn.bias buffers are stored in the file but not loaded).
std::size_t weightFloats(const SyntheticShape& shape);

// config.json of `shape`, as the Hub's files of its family write it.
std::string configJson(const SyntheticShape& shape);

// The folder of `shape` under `root`, written there first when it has no model.safetensors yet
// (model.safetensors is written last and atomically: its presence means the folder is whole).
Expected<std::string> syntheticCheckpoint(const SyntheticShape& shape, const std::string& root);

// Where `shape`'s folder under `root` and its model.safetensors are. Unless the folder is whole
// already (its model.safetensors is there), the folder is made and its config.json written; the
// caller then writes model.safetensors, last.
struct CheckpointFolder {
    std::string folder;
    std::string model;
    bool whole = false;
};
Expected<CheckpointFolder> checkpointFolder(const SyntheticShape& shape, const std::string& root);

// Where the benchmarks keep their synthetic checkpoints: $QKV_BENCH_CHECKPOINTS, else a folder of
// the system's temporary directory (shared by every benchmark program, written once).
std::string checkpointRoot();

// The model of `shape`, written under checkpointRoot() and opened whole (what the timings measure)
// on first use, then kept for the process; null after an error (said on stderr).
const PretrainedModel* syntheticModel(const SyntheticShape& shape);

}  // namespace qkv::bench
