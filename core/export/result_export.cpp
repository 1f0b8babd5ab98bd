#include "core/export/result_export.hpp"

#include <charconv>
#include <cmath>
#include <new>
#include <tuple>

#include "core/attention/streamed_layer.hpp"
#include "core/common/memory.hpp"
#include "core/cost/cost_model.hpp"
#include "core/export/head_analysis_json.hpp"
#include "core/export/json_stream.hpp"
#include "core/export/layer_heads_json.hpp"
#include "core/factored/factored_matrix.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/atomic_folder.hpp"
#include "core/io/npy.hpp"
#include "core/io/regular_file.hpp"
#include "core/presets/head_presets.hpp"
#include "core/session/config_json.hpp"

namespace qkv {

namespace {

// 2: heads numbered from 1 ("head" replaces "index"), init spelled "xavier", config in the
// session spelling (core/session/config_json.cpp).
constexpr std::int64_t formatVersion = 2;

// The config in the one spelling sessions use (core/session/config_json.hpp), plus where the
// inputs came from and what the presets changed beyond their heads.
void writeConfig(JsonStream& json, const Result& r, const ExportProvenance& provenance)
{
    nlohmann::json config = configToJson(r.config);
    config["bias"] = r.weights->hasBias();
    config["weights"] = provenance.weights;
    if (!provenance.weightsLayer.empty()) config["weights_layer"] = provenance.weightsLayer;
    // X not from a file: generated from the seed, or the model's own input (its checkpoint is weights).
    const char* notFromFile = r.config.embeddings == EmbeddingKind::Model ? "model" : "generated";
    config["source_embeddings"] = provenance.sourceEmbeddings.empty() ? notFromFile : provenance.sourceEmbeddings;
    config["target_embeddings"] = provenance.targetEmbeddings.empty() ? notFromFile : provenance.targetEmbeddings;
    Config paper = r.config;  // the paper's embedding settings, to name what differs from them
    paper.tokenEmbeddingScale = 1.0f;
    paper.embeddings = EmbeddingKind::Word;
    config["embedding_changes"] = presetSettingChanges(paper, r.config);
    json.key("config");
    json.raw(config.dump());
}

// At most `limit` rows, evenly spaced, first and last included.
MatrixF sampleRows(const MatrixF& m, Index limit)
{
    if (m.rows() <= limit) return m;
    MatrixF sample(limit, m.cols());
    for (Index i = 0; i < limit; ++i) sample.row(i) = m.row(i * (m.rows() - 1) / (limit - 1));
    return sample;
}

// The dense check X_q W_i X_kv^T costs 2 n_q d_model (d_model + n_k) flops per head in double
// (~140 GFLOP for 16 heads at n = 2048, d_model = 1024), so long sentences are checked on an
// evenly spaced sample of queries and keys; the JSON says which.
constexpr Index equivalenceSampleLimit = 256;

void writeFactored(JsonStream& json, const Result& r, Index head, const ExportOptions& options)
{
    const FactoredMatrix factored = FactoredMatrix::forHead(*r.weights, r.config.headCount, head);
    const MatrixF queries = sampleRows(r.queryInput, equivalenceSampleLimit);
    const MatrixF keys = sampleRows(r.keyValueInput, equivalenceSampleLimit);
    const EquivalenceReport equivalence = equivalenceReport(factored, queries, keys);
    json.key("factored");
    json.beginObject();
    if (exportComputesSpectrum(r.config.d_k(), options)) {
        json.key("singular_values");
        json.beginArray();
        for (Index i = 0; i < factored.singularValues().size(); ++i) json.value(factored.singularValues()(i));
        json.endArray();
        json.key("rank");
        json.value(static_cast<std::int64_t>(factored.numericalRank()));
        json.key("rank_tolerance");
        json.value(factored.rankTolerance());
        json.key("frobenius_norm");
        json.value(factored.frobeniusNorm());
    } else {
        // Bounded cost (result_export.hpp): the fields stay, null, and say why.
        for (const char* name : {"singular_values", "rank", "rank_tolerance", "frobenius_norm"}) {
            json.key(name);
            json.null();
        }
        json.key("spectrum_skipped");
        json.value("d_k = " + std::to_string(r.config.d_k()) + " is above " + std::to_string(kExportSpectrumMaxDk) +
                   "; qkv-studio export --spectrum computes it (O(d_model d_k^2) per head)");
    }
    json.key("equivalence_error");
    json.value(equivalence.relativeError);
    json.key("equivalence_max_abs_difference");
    json.value(equivalence.maxAbsDifference);
    json.key("equivalence_checked");
    json.beginObject();
    json.key("queries");
    json.value(static_cast<std::int64_t>(queries.rows()));
    json.key("keys");
    json.value(static_cast<std::int64_t>(keys.rows()));
    json.endObject();
    json.endObject();
}

void writeCost(JsonStream& json, const Result& r)
{
    LayerShape shape;
    shape.d_model = r.config.d_model;
    shape.heads = r.config.headCount;
    shape.keyValueHeads = r.config.g();
    shape.withBias = r.weights->hasBias();
    shape.headWidth = r.attention.d_k();
    const Count n_q = r.attention.queryCount(), n_k = r.attention.keyCount();
    json.key("cost");
    json.beginObject();
    const ScorePathComparison scorePath =
        compareScorePath(shape.d_model, shape.heads, shape.keyValueHeads, shape.headWidth);
    json.key("layer_parameters");
    json.value(static_cast<std::int64_t>(layerParameterCount(shape)));
    json.key("score_path_parameters_per_head");
    json.beginObject();
    json.key("factored");
    json.value(static_cast<std::int64_t>(scorePath.factored.parametersPerHead));
    json.key("full");
    json.value(static_cast<std::int64_t>(scorePath.full.parametersPerHead));
    json.endObject();
    json.key("score_path_parameters_per_layer");
    json.beginObject();
    json.key("factored");
    json.value(static_cast<std::int64_t>(scorePath.factored.parametersPerLayer));
    json.key("full");
    json.value(static_cast<std::int64_t>(scorePath.full.parametersPerLayer));
    json.endObject();
    json.key("score_flops_per_head");
    json.beginObject();
    json.key("factored");
    json.value(static_cast<std::int64_t>(scoreFlopsFactored(n_q, n_k, shape.d_model, r.config.d_k()).total()));
    json.key("full");
    json.value(static_cast<std::int64_t>(scoreFlopsFullBilinear(n_q, n_k, shape.d_model).total()));
    json.endObject();
    json.key("forward_flops");
    json.value(static_cast<std::int64_t>(attentionForwardFlops(n_q, n_k, shape.d_model, shape.heads)));
    json.key("table");
    json.beginArray();
    const Expected<std::vector<CostRow>> table = costTable(shape, n_q, n_k);
    if (table.ok()) {
        for (const CostRow& row : *table) {
            json.newline();
            json.beginObject();
            json.key("name");
            json.value(std::string_view(row.name));
            json.key("formula");
            json.value(std::string_view(row.formula));
            json.key("value");
            json.value(static_cast<std::int64_t>(row.value));
            json.endObject();
        }
    }
    json.endArray();
    json.endObject();
}

std::string rangeText(const PositionSpan& range)
{
    return std::to_string(range.begin) + ":" + std::to_string(range.end);
}

// The head's weights and scaled scores over a region: a slice of the held maps, or recomputed
// exactly from Q_i and K_j when the layer was streamed.
void writeHeadRegion(JsonStream& json, const Result& r, Index head, const PositionSpan& rows, const PositionSpan& cols)
{
    const Index height = rows.end - rows.begin, width = cols.end - cols.begin;
    json.key("attention");
    if (!r.streamed()) {
        json.matrix(MatrixF(r.attention.heads[static_cast<std::size_t>(head)].attention.block(rows.begin, cols.begin,
                                                                                               height, width)));
    } else if (const Expected<MatrixF> region =
                   headAttentionRegion(r.attention, head, rows.begin, rows.end, cols.begin, cols.end)) {
        json.matrix(*region);
    } else {
        json.null();
    }
    json.newline();
    json.key("scores");
    if (r.attention.keepsScores()) {
        json.matrix(MatrixF(
            r.attention.heads[static_cast<std::size_t>(head)].scores.block(rows.begin, cols.begin, height, width)));
    } else {
        // As the engine stores them: (Q_i scale) K_j^T, before any cap or mask.
        const MatrixF scaledQuery = r.attention.queryHead(head).middleRows(rows.begin, height) * r.attention.scoreScale;
        json.matrix(MatrixF(scaledQuery * r.attention.keyHead(head).middleRows(cols.begin, width).transpose()));
    }
}

// A head's maps as the options ask: pooled, a region, or whole.
void writeHeadMaps(JsonStream& json, const Result& r, Index head, const ExportOptions& options)
{
    if (options.pool > 0 && r.streamed()) {
        const PooledAttention& pooled = r.streamedHeads[static_cast<std::size_t>(head)].pooled;
        writePooledMap(json, "attention_pool", pooled.rowEdges, pooled.columnEdges, pooled.mean, pooled.max);
        json.newline();
    }
    if (options.region()) {
        if (const auto region = exportRegion(options, r.attention.queryCount(), r.attention.keyCount()))
            writeHeadRegion(json, r, head, region->first, region->second);
        return;
    }
    if (options.pool > 0) return;
    const HeadAttention& h = r.attention.heads[static_cast<std::size_t>(head)];
    json.key("attention");
    json.matrix(h.attention);
    json.newline();
    json.key("scores");
    json.matrix(h.scores);
}

template <class Matrix>
void writePooledBlocks(JsonStream& json, std::string_view name, const std::vector<Index>& rowEdges,
                       const std::vector<Index>& columnEdges, const Matrix& mean, const Matrix& max)
{
    json.key(name);
    json.beginObject();
    json.key("row_edges");
    json.indices(rowEdges);
    json.key("col_edges");
    json.indices(columnEdges);
    json.key("mean");
    json.matrix(mean);
    json.newline();
    json.key("max");
    json.matrix(max);
    json.endObject();
}

}  // namespace

void writePooledMap(JsonStream& json, std::string_view name, const std::vector<Index>& rowEdges,
                    const std::vector<Index>& columnEdges, const MatrixF& mean, const MatrixF& max)
{
    writePooledBlocks(json, name, rowEdges, columnEdges, mean, max);
}

void writePooledMap(JsonStream& json, std::string_view name, const std::vector<Index>& rowEdges,
                    const std::vector<Index>& columnEdges, const MatrixD& mean, const MatrixD& max)
{
    writePooledBlocks(json, name, rowEdges, columnEdges, mean, max);
}

// "pool": N and "rows": [A, B], "cols": [C, D] when the maps are pooled or cut to a region.
void writeMapExtent(JsonStream& json, Index n_q, Index n_k, const ExportOptions& options)
{
    if (options.pool > 0) {
        json.key("pool");
        json.value(static_cast<std::int64_t>(options.pool));
        json.newline();
    }
    if (!options.region()) return;
    const auto region = exportRegion(options, n_q, n_k);
    if (!region) return;
    for (const auto& [name, range] : {std::pair{"rows", region->first}, std::pair{"cols", region->second}}) {
        json.key(name);
        json.beginArray();
        json.value(static_cast<std::int64_t>(range.begin));
        json.value(static_cast<std::int64_t>(range.end));
        json.endArray();
    }
    json.newline();
}

void writeLayerHeads(JsonStream& json, const Result& r, const ExportOptions& options, bool includeMatrices,
                     const HeadFieldsWriter& extraFields)
{
    json.key("heads");
    json.beginArray();
    // Every head's ablation effect needs every head's contribution: computed once (n_q x h norms).
    const Expected<AblationEffects> ablation = ablationEffects(r);
    for (Index head = 0; head < r.attention.headCount(); ++head) {
        json.newline();
        json.beginObject();
        // Heads are numbered from 1 everywhere people read them (docs/formats.md, "Numbering").
        json.key("head");
        json.value(static_cast<std::int64_t>(head + 1));
        json.key("kv_head");
        json.value(static_cast<std::int64_t>(r.grouping().keyValueHeadOf(head) + 1));
        writeFactored(json, r, head, options);
        json.newline();
        writeHeadAnalysis(json, r, head, ablation ? &*ablation : nullptr);
        if (includeMatrices) writeHeadMaps(json, r, head, options);
        if (extraFields) extraFields(json, head);
        json.endObject();
        // The head's analysis freed what it allocated; kept by the heap (keepLargeAllocationsForReuse)
        // and served in another order to the next head, it would fragment, and the peak would
        // grow with h past the memory estimate (estimateMemory: one head at a time).
        releaseFreedMemory();
    }
    json.endArray();
}

namespace {

// The whole document; with includeMatrices false, the summary that sits beside .npy arrays.
void writeJsonDocument(AtomicFile& file, const Result& r, const ExportProvenance& provenance, bool includeMatrices,
                       const ExportOptions& options)
{
    JsonStream json(file);
    json.beginObject();
    json.key("format");
    json.value("qkv-studio-export");
    json.key("version");
    json.value(formatVersion);
    json.newline();
    writeConfig(json, r, provenance);
    json.newline();
    json.key("tokens");
    json.beginObject();
    json.key("query");
    json.strings(r.queryLabels);
    json.key("key");
    json.strings(r.keyLabels);
    json.endObject();
    json.newline();
    writeMapExtent(json, r.attention.queryCount(), r.attention.keyCount(), options);
    json.key("fully_masked_rows");
    json.beginArray();
    for (std::size_t q = 0; q < r.attention.fullyMaskedRows.size(); ++q)
        if (r.attention.fullyMaskedRows[q]) json.value(static_cast<std::int64_t>(q));
    json.endArray();
    json.newline();
    writeLayerHeads(json, r, options, includeMatrices);
    json.newline();
    if (includeMatrices && !options.region() && options.pool == 0) {
        json.key("output");
        json.matrix(r.attention.output);
        json.newline();
    } else if (includeMatrices && options.region()) {
        // The region's query rows of the output (n_q x d_model is left out under --pool alone).
        const PositionSpan rows = exportRegion(options, r.attention.queryCount(), r.attention.keyCount())->first;
        json.key("output");
        json.matrix(MatrixF(r.attention.output.middleRows(rows.begin, rows.end - rows.begin)));
        json.newline();
    }
    writeCost(json, r);
    json.newline();
    json.endObject();
    json.newline();
}

std::string csvField(std::string_view text)
{
    const std::string clean = sanitizeUtf8(text);
    if (clean.find_first_of(",\"\n\r") == std::string::npos) return clean;
    std::string quoted = "\"";
    for (char c : clean) {
        if (c == '"') quoted += '"';
        quoted += c;
    }
    return quoted + '"';
}

Status writeCsv(const Result& r, const std::string& path)
{
    AtomicFile file;
    if (Status opened = file.open(path); !opened) return opened;
    file.write("head,query_index,query_token,key_index,key_token,attention,scaled_score,raw_score,masked\n");
    const auto toRaw = static_cast<float>(r.attention.rawScoreFactor());
    std::string line;
    char number[32];
    const auto appendNumber = [&](auto value) {
        const auto [end, error] = std::to_chars(number, number + sizeof number, value);
        (void)error;
        line.append(number, end);
    };
    std::vector<std::string> queryFields, keyFields;
    for (const std::string& label : r.queryLabels) queryFields.push_back(csvField(label));
    for (const std::string& label : r.keyLabels) keyFields.push_back(csvField(label));
    for (Index head = 0; head < r.attention.headCount(); ++head) {
        const HeadAttention& h = r.attention.heads[static_cast<std::size_t>(head)];
        for (Index q = 0; q < h.attention.rows(); ++q) {
            for (Index k = 0; k < h.attention.cols(); ++k) {
                line.clear();
                appendNumber(head + 1);
                line += ',';  // from 1, as in the app
                appendNumber(q);
                line += ',';
                line += queryFields[static_cast<std::size_t>(q)];
                line += ',';
                appendNumber(k);
                line += ',';
                line += keyFields[static_cast<std::size_t>(k)];
                line += ',';
                appendNumber(h.attention(q, k));
                line += ',';
                appendNumber(h.scores(q, k));
                line += ',';
                appendNumber(h.scores(q, k) * toRaw);
                line += ',';
                line += r.attention.mask.masked(q, k) ? "1\n" : "0\n";
                file.write(line);
            }
        }
    }
    return file.commit();
}

// (h x n_q x n_k) float32, written head by head so no 3-D copy is ever made.
Status writeHeadStack(const std::string& path, const Result& r, MatrixF HeadAttention::*member)
{
    AtomicFile file;
    if (Status opened = file.open(path); !opened) return opened;
    const auto h = static_cast<std::size_t>(r.attention.headCount());
    const auto n_q = static_cast<std::size_t>(r.attention.queryCount());
    const auto n_k = static_cast<std::size_t>(r.attention.keyCount());
    file.write(npyHeader(NpyDtype::Float32, {h, n_q, n_k}));
    for (const HeadAttention& head : r.attention.heads) {
        const MatrixF& m = head.*member;  // row-major: C order
        file.write(m.data(), static_cast<std::size_t>(m.size()) * sizeof(float));
    }
    return file.commit();
}

// What an earlier npy export leaves in its folder (and its temporaries, should a run have been
// killed): an existing folder is replaced only when it holds nothing else (AtomicFolder).
bool isNpyExportEntry(std::string_view name)
{
    const auto endsWith = [&](std::string_view tail) {
        return name.size() >= tail.size() && name.substr(name.size() - tail.size()) == tail;
    };
    const std::size_t temporary = name.find(".tmp-");
    if (temporary != std::string_view::npos) name = name.substr(0, temporary);
    return name == "meta.json" || (endsWith(".npy") && name.size() > 4);
}

// Every array goes into a sibling temporary folder, which replaces the folder at `path` only
// when all are written: a failure at any point leaves an earlier export exactly as it was.
Status writeNpyFolder(const Result& r, const std::string& path, const ExportProvenance& provenance,
                      const ExportOptions& options)
{
    AtomicFolder folder;
    if (Status opened = folder.open(path, isNpyExportEntry); !opened) return opened;
    const auto step = [&](const char* name, Status status) {
        if (status)
            folder.added(name);
        else
            status = Error{folder.inTermsOfPath(status.error())};
        return status;
    };
    Status status = step("attention.npy", writeHeadStack(folder.pathOf("attention.npy"), r, &HeadAttention::attention));
    if (status) status = step("scores.npy", writeHeadStack(folder.pathOf("scores.npy"), r, &HeadAttention::scores));
    const std::pair<const char*, const MatrixF*> matrices[] = {
        {"output.npy", &r.attention.output},       {"head_outputs.npy", &r.attention.headOutputs},
        {"query.npy", &r.attention.query},         {"key.npy", &r.attention.key},
        {"value.npy", &r.attention.value},         {"query_input.npy", &r.queryInput},
        {"key_value_input.npy", &r.keyValueInput}, {"W_Q.npy", &r.weights->queryProjection},
        {"W_K.npy", &r.weights->keyProjection},    {"W_V.npy", &r.weights->valueProjection},
        {"W_O.npy", &r.weights->outputProjection}};
    for (const auto& [name, matrix] : matrices) {
        if (!status) break;
        status = step(name, writeNpy(folder.pathOf(name), *matrix));
    }
    if (status) {
        AtomicFile meta;
        status = meta.open(folder.pathOf("meta.json"));
        if (status) {
            writeJsonDocument(meta, r, provenance, false, options);
            status = meta.commit();
        }
        status = step("meta.json", status);
    }
    if (!status) return status;  // ~AtomicFolder removes the temporary folder
    return folder.commit();
}

}  // namespace

bool parseExportFormat(std::string_view name, ExportFormat& format)
{
    return parseName(kExportFormatNames, name, format);
}

bool exportComputesSpectrum(Index d_k, const ExportOptions& options)
{
    return options.spectrumAtAnyDk || d_k <= kExportSpectrumMaxDk;
}

AnalysisPlan exportAnalysisPlan(ExportFormat format, const Config& config, const ExportOptions& options)
{
    AnalysisPlan plan;
    if (format == ExportFormat::Csv) return plan;  // rows of the Result only
    plan.factored = true;
    plan.equivalenceSampleRows = equivalenceSampleLimit;
    plan.spectrum = exportComputesSpectrum(config.d_k(), options);
    plan.headStatistics = true;
    return plan;
}

Expected<std::pair<PositionSpan, PositionSpan>> exportRegion(const ExportOptions& options, Index n_q, Index n_k)
{
    const PositionSpan rows = options.rows.value_or(PositionSpan{0, n_q});
    const PositionSpan cols = options.cols.value_or(PositionSpan{0, n_k});
    for (const auto& [option, range, size, what] :
         {std::tuple{"--rows", rows, n_q, "query rows"}, std::tuple{"--cols", cols, n_k, "key columns"}}) {
        if (range.begin < 0 || range.begin >= range.end || range.end > size)
            return Error{std::string(option) + ": " + rangeText(range) + " is not a non-empty range of the " +
                         std::to_string(size) + " " + what + " (half-open A:B, from 0)"};
    }
    return std::pair{rows, cols};
}

Expected<AnalysisPlan> exportPlanForSize(ExportFormat format, const Config& config, const ExportOptions& options,
                                         Index n_q, Index n_k)
{
    AnalysisPlan plan = exportAnalysisPlan(format, config, options);
    if ((options.pool > 0 || options.region()) && format != ExportFormat::Json)
        return Error{"--pool and --rows/--cols write JSON: use --format json"};
    if (options.pool < 0) return Error{"--pool: the number of blocks must be at least 1"};
    if (options.maxCells < 1) return Error{"--max-cells: must be at least 1"};
    if (options.region())
        if (const auto region = exportRegion(options, n_q, n_k); !region) return Error{region.error()};
    const std::int64_t cells = static_cast<std::int64_t>(n_q) * static_cast<std::int64_t>(n_k);
    if (options.pool > 0) {
        plan.pooledBlocks = options.pool;
    } else if (options.region()) {
        if (cells > options.maxCells) plan.pooledBlocks = 1;  // streamed: the statistics, never the whole map
    } else if (cells > options.maxCells) {
        return Error{"the layer's maps are " + std::to_string(n_q) + " x " + std::to_string(n_k) + " = " +
                     std::to_string(cells) + " cells per head, above --max-cells " + std::to_string(options.maxCells) +
                     ": write them pooled with --pool N (at most N x N blocks of means and maxima), or a region "
                     "with --rows A:B and --cols C:D (or raise --max-cells)"};
    }
    return plan;
}

Status checkExportTarget(ExportFormat format, const std::string& path)
{
    if (format == ExportFormat::Npy) return AtomicFolder::check(path, isNpyExportEntry);
    Expected<std::string> target = fileWriteTarget(path);
    if (!target) return Error{target.error()};
    return {};
}

Status exportResult(const Result& result, ExportFormat format, const std::string& path,
                    const ExportProvenance& provenance, const ExportOptions& options)
{
    if (options.pool > 0 && !result.streamed())
        return Error{"--pool: the result holds full maps; compute it with exportPlanForSize's plan"};
    if (options.region())
        if (const auto region = exportRegion(options, result.attention.queryCount(), result.attention.keyCount());
            !region)
            return Error{region.error()};
    if (result.streamed() && !options.region() && options.pool == 0)
        return Error{"a streamed layer holds no full maps: export it with --pool or --rows/--cols"};
    if (result.streamed() && format != ExportFormat::Json)
        return Error{"--pool and --rows/--cols write JSON: use --format json"};
    try {
        switch (format) {
        case ExportFormat::Json: {
            AtomicFile file;
            if (Status opened = file.open(path); !opened) return opened;
            writeJsonDocument(file, result, provenance, true, options);
            return file.commit();
        }
        case ExportFormat::Csv: return writeCsv(result, path);
        case ExportFormat::Npy: return writeNpyFolder(result, path, provenance, options);
        }
    } catch (const std::bad_alloc&) {
        return Error{"not enough memory to write '" + path + "'"};
    }
    return Error{"unknown export format"};
}

}  // namespace qkv
