#pragma once
// The whole model in one JSON file (`qkv-studio export --layer all`, docs/formats.md "Whole
// model"): every attention layer of a run in model order, each as the one-layer export writes its
// heads plus the value-weighted norms, the attention rollout of the stack that reads the typed
// sentence, and the readout's most likely tokens.
//
//   layers[]      name, kind, index (as --list-layers numbers it), tokens, heads[] (the one-layer
//                 export's fields, each with value_norms, n_q x n_k, and roles: circuits_json.hpp),
//                 value_norms (the layer's)
//   rollout       n x n (rows: positions after the last layer, columns: input tokens), or null
//   predictions   [{position, top: [{token, id, probability}]}]: a causal LM's every position,
//                 a masked LM's every [MASK]; empty without a readout
//   generated     [{position, id, token, probability}]: the tokens generated after the prompt
//                 (generation.hpp), only when there are some; tokens and maps then cover them
//   circuits      every self-attention head's QK and OV circuits (--circuits K: circuits_json.hpp),
//                 only when asked
//   patching, logit_lens  activation patching between the prompt and a corrupted one, and what
//                 each layer would predict (--corrupt, --logit-lens: patching_json.hpp), when asked
// Written atomically: on failure nothing partial is left at the path.

#include <memory>
#include <string>
#include <vector>

#include "core/analysis/predictions.hpp"
#include "core/circuits/head_circuits.hpp"
#include "core/common/expected.hpp"
#include "core/config/config.hpp"
#include "core/export/patching_json.hpp"
#include "core/export/result_export.hpp"
#include "core/pipeline/generation.hpp"
#include "core/pipeline/model_predictions.hpp"
#include "core/pipeline/pretrained_run.hpp"

namespace qkv {

// Writes the document at `path` (a JSON file; checkExportTarget(Json, path) rules apply).
// `base` holds the typed sentences and view settings each layer's config starts from.
Status exportModelJson(const std::shared_ptr<const PretrainedModel>& model, const ModelRun& run,
                       const ModelSentences& sentences, const Config& base, const std::string& path,
                       const ExportOptions& options = {}, const std::vector<GeneratedToken>& generated = {},
                       const std::vector<HeadCircuits>* circuits = nullptr, const ModelExportAnalyses& analyses = {});

}  // namespace qkv
