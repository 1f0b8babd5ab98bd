#pragma once
// The whole-model export's "patching" and "logit_lens" (docs/formats.md, "Whole model"):
//   patching    {answer: {id, token}, wrong: {id, token}, clean_logit_difference,
//               corrupt_logit_difference, heads: [[r for each head] for each layer],
//               residual: [[r for each position] for each layer]}  (core/pipeline/patching.hpp)
//   logit_lens  [{layer, positions: [{position, top: [{id, token, probability}]}]}]
//               (core/pipeline/logit_lens.hpp); layer: the index --list-layers prints
// Layers in model order. A token is its vocabulary entry, or null for an id the tokenizer lacks.

#include <string>
#include <vector>

#include "core/export/json_stream.hpp"
#include "core/pipeline/logit_lens.hpp"
#include "core/pipeline/patching.hpp"

namespace qkv {

// What --corrupt and --logit-lens add to the whole-model export; null: not asked for.
struct ModelExportAnalyses {
    const PatchingGrids* patching = nullptr;
    const std::vector<LogitLensLayer>* logitLens = nullptr;
};

// pieces: the readout's vocabulary entries by id (empty for an unlisted id).
void writePatching(JsonStream& json, const std::vector<std::string>& pieces, const PatchingGrids& grids);
void writeLogitLens(JsonStream& json, const PretrainedModel& model, const std::vector<std::string>& pieces,
                    const std::vector<LogitLensLayer>& lens);

}  // namespace qkv
