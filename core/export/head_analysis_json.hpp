#pragma once
// The per-head analysis objects of the JSON export: `statistics`, `qk_projection` and
// `ablation` (docs/formats.md). Streamed: one head's vectors at a time, nothing kept.

#include "core/analysis/head_ablation.hpp"
#include "core/export/json_stream.hpp"

namespace qkv {

struct Result;

// Writes the three keys for head `head` (0-based) inside the head's open object. `ablation`
// holds every head's effects (ablationEffects(result), computed once before the head loop);
// null writes `"ablation": null`. An analysis that fails (it cannot for a computed Result)
// writes null for its key.
void writeHeadAnalysis(JsonStream& json, const Result& result, Index head, const AblationEffects* ablation);

}  // namespace qkv
