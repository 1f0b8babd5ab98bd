#pragma once
// The model's own first-layer input from a checkpoint (docs/checkpoints.md):
// when the checkpoint holds its token and position embeddings and its tokenizer files sit
// beside it, its first attention layer can read X exactly as the model builds it.
//
// The families whose row has an ownInput (core/families/family_table.hpp) say the tables: their
// token, position and token-type embeddings, and the norm the first layer reads (the embeddings'
// own, BERT's LayerNorm, or a pre-norm model's first block's, GPT-2's h.0.ln_1), with its epsilon;
// the tokenizer files sit beside the checkpoint:
//   BERT   vocab.txt (WordPiece)
//   GPT-2  vocab.json + merges.txt (byte-level BPE)
// Any other layer reads what the layers before it computed: core/pipeline/layer_input.hpp runs
// the whole model for it.

#include <memory>
#include <string>
#include <string_view>

#include "core/checkpoint/checkpoint.hpp"
#include "core/common/expected.hpp"
#include "core/embedding/model_input.hpp"

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
