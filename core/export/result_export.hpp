#pragma once
// Writes a computed Result for other tools: JSON (docs/formats.md), CSV (one row per
// head, query and key) or a folder of .npy arrays. Every writer is atomic: on failure nothing
// partial is left at the output path.

#include <string>
#include <string_view>

#include "core/common/expected.hpp"
#include "core/pipeline/compute.hpp"

namespace qkv {

enum class ExportFormat { Json, Csv, Npy };

bool parseExportFormat(std::string_view name, ExportFormat& format);

// Where the inputs came from, recorded in the output for reproducibility.
struct ExportProvenance {
    std::string weights = "generated";  // "generated" or the weights file given
    std::string weightsLayer;           // the checkpoint layer, when one was chosen
    std::string sourceEmbeddings;       // file, or empty for generated
    std::string targetEmbeddings;
};

// JSON and CSV write one file at `path`. Npy writes a folder `path` holding attention.npy and
// scores.npy (h x n_q x n_k, float32), output.npy, head_outputs.npy, query.npy (n_q x d_model),
// key.npy, value.npy (n_k x d_model), query_input.npy, key_value_input.npy, W_Q.npy, W_K.npy,
// W_V.npy, W_O.npy and meta.json (the JSON export without its matrices).
Status exportResult(const Result& result, ExportFormat format, const std::string& path,
                    const ExportProvenance& provenance = {});

}  // namespace qkv
