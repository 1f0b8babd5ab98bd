#pragma once
// The "heads" array of one attention layer (docs/formats.md): each head's number, its key/value
// head, the factored W_i, statistics, Q/K map and ablation effect, and with matrices its
// attention and scores. The one-layer export and the whole-model export write it alike.

#include <functional>
#include <string_view>
#include <vector>

#include "core/common/matrix.hpp"
#include "core/export/json_stream.hpp"
#include "core/export/result_export.hpp"

namespace qkv {

// More fields of head `head` (0-based), written inside its object after the usual ones.
using HeadFieldsWriter = std::function<void(JsonStream& json, Index head)>;

// A pooled map (docs/formats.md, attention_pool): `name` then {"row_edges", "col_edges", "mean",
// "max"}; a head's stream keeps it in float, a map pooled from a held one (the rollout) in double.
void writePooledMap(JsonStream& json, std::string_view name, const std::vector<Index>& rowEdges,
                    const std::vector<Index>& columnEdges, const MatrixF& mean, const MatrixF& max);
void writePooledMap(JsonStream& json, std::string_view name, const std::vector<Index>& rowEdges,
                    const std::vector<Index>& columnEdges, const MatrixD& mean, const MatrixD& max);

// "pool": N and "rows": [A, B], "cols": [C, D] when the maps are pooled or cut to a region
// (n_q x n_k: the region's map; a whole model's longest).
void writeMapExtent(JsonStream& json, Index n_q, Index n_k, const ExportOptions& options);

void writeLayerHeads(JsonStream& json, const Result& r, const ExportOptions& options, bool includeMatrices,
                     const HeadFieldsWriter& extraFields = {});

}  // namespace qkv
