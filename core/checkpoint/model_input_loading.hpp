#pragma once
// The model's own first-layer input from a checkpoint (docs/checkpoints.md):
// when the checkpoint holds its token and position embeddings and its tokenizer files sit
// beside it, its first attention layer can read X exactly as the model builds it.
//
//   BERT   bert.embeddings.word_embeddings.weight, .position_embeddings.weight,
//          .token_type_embeddings.weight, .LayerNorm.weight|bias (or gamma|beta); vocab.txt
//          (WordPiece); layer_norm_eps from config.json (default 1e-12)
//   GPT-2  wte.weight, wpe.weight, h.0.ln_1.weight|bias (with or without "transformer.");
//          vocab.json + merges.txt (byte-level BPE); layer_norm_epsilon (default 1e-5)
// Any other layer reads what the layers before it computed: core/pipeline/layer_input.hpp runs
// the whole model for it.

#include <memory>
#include <string>
#include <string_view>

#include "core/checkpoint/checkpoint.hpp"
#include "core/common/expected.hpp"
#include "core/embedding/model_own_input.hpp"

namespace qkv {

// Whether `layer` can take the model's own input: cheap (headers and file names only). The
// error says why not, for the status line: another family, not the first layer, tables or
// tokenizer files missing.
Status modelInputAvailable(const Checkpoint& checkpoint, const CheckpointLayer& layer);

// Reads the tokenizer files and the embedding tables (only their bytes), checks their shapes
// against the layer's d_model and the vocabulary's size, and builds the input.
Expected<std::shared_ptr<const ModelInput>> loadModelInput(const Checkpoint& checkpoint, const CheckpointLayer& layer);

// openCheckpoint + findCheckpointLayer + loadModelInput (a session's weights provenance names
// the checkpoint and the layer).
Expected<std::shared_ptr<const ModelInput>> loadModelInput(const std::string& path, std::string_view nameOrIndex,
                                                           const CheckpointOptions& options = {});

}  // namespace qkv
