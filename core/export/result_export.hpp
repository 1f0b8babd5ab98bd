#pragma once
// Writes a computed Result for other tools: JSON (docs/formats.md), CSV (one row per
// head, query and key) or a folder of .npy arrays. Every writer is atomic: on failure nothing
// partial is left at the output path.

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <string_view>

#include "core/common/enum_names.hpp"
#include "core/common/expected.hpp"
#include "core/common/limits.hpp"
#include "core/common/position_span.hpp"
#include "core/config/memory_estimate.hpp"
#include "core/result/result.hpp"

namespace qkv {

enum class ExportFormat { Json, Csv, Npy };
// The command line's spelling (export --format).
inline constexpr std::array<EnumName<ExportFormat>, 3> kExportFormatNames{{
    {ExportFormat::Json, "json"},
    {ExportFormat::Csv, "csv"},
    {ExportFormat::Npy, "npy"},
}};

bool parseExportFormat(std::string_view name, ExportFormat& format);

// Where the inputs came from, recorded in the output for reproducibility.
struct ExportProvenance {
    std::string weights = "generated";  // "generated" or the weights file given
    std::string weightsLayer;           // the checkpoint layer, when one was chosen
    std::string sourceEmbeddings;       // file, or empty for generated
    std::string targetEmbeddings;
};

// The singular values of each W_i (thin QRs of W_i^Q, W_i^K and an SVD of the d_k x d_k middle)
// cost O(d_model d_k^2) time per head, O(d_model^2 d_k) for the layer, and about
// 8 (2 d_model d_k + 7 d_k^2) bytes for the head being analysed (spectrumBytes). Above this d_k
// the export skips them unless asked: at d_model = d_k = 4096 they took 35 s and 1.1 GiB here
// (docs/benchmarks.md), at d_k = 1024 ~1.5 s per head.
inline constexpr Index kExportSpectrumMaxDk = 1024;

// Above this many cells per head (n_q x n_k), an export writes full maps only when asked not to
// (--max-cells): the held maps' limit squared, 4096 x 4096, 64 MiB of float per map, hundreds of
// MiB of JSON text per head.
inline constexpr std::int64_t kDefaultMaxCells = std::int64_t{limits::maxFullMapTokens} * limits::maxFullMapTokens;

struct ExportOptions {
    // Compute the spectrum whatever d_k (qkv-studio export --spectrum).
    bool spectrumAtAnyDk = false;
    // --pool N: each head's map as at most N x N blocks (attention_pool: means and maxima) and
    // no full attention; 0: not pooled.
    Index pool = 0;
    // --rows A:B, --cols C:D (half-open, from 0): each head's attention and scores over that
    // region only. One given alone takes every position of the other.
    std::optional<PositionSpan> rows;
    std::optional<PositionSpan> cols;
    // --max-cells: without --pool or a region, a layer with more cells per head is refused.
    std::int64_t maxCells = kDefaultMaxCells;

    bool region() const { return rows.has_value() || cols.has_value(); }
};

// The export's region of an n_q x n_k map: --rows and --cols, each defaulting to every position.
// Errors: a range that is empty or outside the map, naming the option.
Expected<std::pair<PositionSpan, PositionSpan>> exportRegion(const ExportOptions& options, Index n_q, Index n_k);

// The one rule for what an export of an n_q x n_k layer holds (exportAnalysisPlan's plan, made
// streamed or not): with --pool the maps stream (pooled, never held); with a region they are held
// whole when they fit --max-cells (the region then is a slice, bit for bit the full export's) and
// streamed otherwise; without either, a layer above --max-cells is refused with a message that
// names --pool and --rows/--cols. --pool and regions write JSON only.
Expected<AnalysisPlan> exportPlanForSize(ExportFormat format, const Config& config, const ExportOptions& options,
                                         Index n_q, Index n_k);

// Whether the JSON (and npy meta.json) carry singular values, rank, rank tolerance and
// Frobenius norm; when not, those fields are null and "spectrum_skipped" says why.
bool exportComputesSpectrum(Index d_k, const ExportOptions& options);

// What the export computes besides the Result, for the memory estimate (validateConfig).
AnalysisPlan exportAnalysisPlan(ExportFormat format, const Config& config, const ExportOptions& options = {});

// Whether `path` may receive this format, checked before any work (exportResult checks again):
// JSON and CSV replace only a regular file (or a link to one) or a free name; npy replaces only
// an earlier npy export's folder or an empty one (the message names the path and what is there).
Status checkExportTarget(ExportFormat format, const std::string& path);

// JSON and CSV write one file at `path`. Npy writes a folder `path` holding attention.npy and
// scores.npy (h x n_q x n_k, float32), output.npy, head_outputs.npy, query.npy (n_q x d_model),
// key.npy, value.npy (n_k x d_model), query_input.npy, key_value_input.npy, W_Q.npy, W_K.npy,
// W_V.npy, W_O.npy and meta.json (the JSON export without its matrices). The folder is built
// beside `path` and swapped in complete (AtomicFolder): an earlier export there stays exactly as
// it was on any failure.
Status exportResult(const Result& result, ExportFormat format, const std::string& path,
                    const ExportProvenance& provenance = {}, const ExportOptions& options = {});

}  // namespace qkv
