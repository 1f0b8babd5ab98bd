#include "core/session/session.hpp"

#include <cmath>

#include "core/common/limits.hpp"
#include "core/config/validation.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/file_bytes.hpp"
#include "core/session/config_json.hpp"
#include "core/session/json_matrix.hpp"
#include "core/session/trained_model_json.hpp"

namespace qkv {

namespace {

using Json = nlohmann::json;

Json weightsToJson(const Session& s)
{
    const AttentionWeights& w = *s.weights;
    Json tensors = {{"W_Q", matrixToJson(w.queryProjection)},
                    {"W_K", matrixToJson(w.keyProjection)},
                    {"W_V", matrixToJson(w.valueProjection)},
                    {"W_O", matrixToJson(w.outputProjection)}};
    if (w.hasBias()) {
        tensors["b_Q"] = matrixToJson(*w.queryBias);
        tensors["b_K"] = matrixToJson(*w.keyBias);
        tensors["b_V"] = matrixToJson(*w.valueBias);
        tensors["b_O"] = matrixToJson(*w.outputBias);
    }
    if (w.hasQueryKeyNorm()) {
        tensors["q_norm"] = matrixToJson(*w.queryNorm);
        tensors["k_norm"] = matrixToJson(*w.keyNorm);
    }
    Json origins = Json::array();
    for (const HeadOrigin origin : s.weightsProvenance.heads) origins.push_back(headOriginName(origin));
    Json json = {{"file", s.weightsProvenance.file},
                 {"layer", s.weightsProvenance.layer},
                 {"head_origins", origins},
                 {"tensors", tensors}};
    if (w.hasQueryKeyNorm()) json["qk_norm_epsilon"] = w.queryKeyNormEpsilon;
    return json;
}

Json embeddingToJson(const MatrixF& m, const std::string& file)
{
    Json json = matrixToJson(m);
    json["file"] = file;
    return json;
}

Json viewToJson(const ViewOptions& v)
{
    Json range = {{"mode", colorRangeModeName(v.colorRange.mode)}};
    if (v.colorRange.mode == ColorRange::Mode::Fixed) {
        range["low"] = v.colorRange.low;
        range["high"] = v.colorRange.high;
    }
    Json view = {{"tab", v.tab},
                 {"head", v.head + 1},
                 {"query", v.query},
                 {"key", v.key},
                 {"colormap", v.colormap},
                 {"show", v.show},
                 {"average_of_heads", v.averageOfHeads},
                 {"color_range", range},
                 {"zoom", v.zoom}};
    // Only when some are off: a session without a whole model reads as it always did.
    if (!v.modelHeadsOff.empty()) view["model_heads_off"] = v.modelHeadsOff;
    if (v.blockMaxima) view["block_maxima"] = true;
    if (v.querySpanEnd > v.query + 1) view["query_span"] = {v.query, v.querySpanEnd};
    return view;
}

// ---- reading -------------------------------------------------------------------------------

Expected<std::shared_ptr<const AttentionWeights>> weightsFromJson(const Json& json, const Config& config,
                                                                  WeightsProvenance& provenance)
{
    if (!json.is_object()) return Error{"weights: must be an object"};
    if (const auto file = json.find("file"); file != json.end() && file->is_string()) provenance.file = *file;
    if (const auto layer = json.find("layer"); layer != json.end() && layer->is_string()) provenance.layer = *layer;
    const auto tensors = json.find("tensors");
    if (tensors == json.end() || !tensors->is_object()) return Error{"weights.tensors: missing"};
    const Index d = config.d_model, queryWidth = config.headCount * config.d_k(), width = config.g() * config.d_k();
    // The columns a stored tensor declares, when they are a positive multiple of `unit` within
    // the app's widths (else `fallback`, and the shape check below names the tensor).
    const auto declaredColumns = [&](const char* name, Index unit, Index fallback) {
        const auto found = tensors->find(name);
        if (found == tensors->end() || !found->is_object()) return fallback;
        const auto shape = found->find("shape");
        if (shape == found->end() || !shape->is_array() || shape->size() != 2 || !(*shape)[1].is_number_integer())
            return fallback;
        const long long columns = (*shape)[1].get<long long>();
        return columns > 0 && columns <= limits::maxQueryWidth && columns % unit == 0 ? static_cast<Index>(columns)
                                                                                      : fallback;
    };
    // W^V is d_model x g d_v: d_v = d_k but in a kept full W_i model (d_v = d_model / h).
    const Index valueWidth = declaredColumns("W_V", config.g(), width);
    const Index concatWidth = config.headCount * (valueWidth / config.g());
    auto weights = std::make_shared<AttentionWeights>();
    const auto read = [&](const char* name, Index rows, Index cols, MatrixF& into) -> Status {
        const auto found = tensors->find(name);
        if (found == tensors->end()) return Error{std::string("weights.tensors.") + name + ": missing"};
        auto m = matrixFromJson(*found, std::string("weights.tensors.") + name, rows, cols);
        if (!m) return Error{m.error()};
        into = std::move(*m);
        return {};
    };
    for (const auto& [name, rows, cols, into] :
         {std::tuple{"W_Q", d, queryWidth, &weights->queryProjection},
          std::tuple{"W_K", d, width, &weights->keyProjection},
          std::tuple{"W_V", d, valueWidth, &weights->valueProjection},
          std::tuple{"W_O", concatWidth, d, &weights->outputProjection}})
        if (Status s = read(name, rows, cols, *into); !s) return Error{s.error()};
    if (config.withBias) {
        MatrixF b;
        for (const auto& [name, cols, into] :
             {std::tuple{"b_Q", queryWidth, &weights->queryBias}, std::tuple{"b_K", width, &weights->keyBias},
              std::tuple{"b_V", valueWidth, &weights->valueBias}, std::tuple{"b_O", d, &weights->outputBias}}) {
            if (Status s = read(name, 1, cols, b); !s) return Error{s.error()};
            *into = b.row(0);
        }
    }
    // Qwen3's norms of q and k: one head's d_k scales, or the whole projection's.
    if (tensors->contains("q_norm") || tensors->contains("k_norm")) {
        MatrixF n;
        for (const auto& [name, whole, into] : {std::tuple{"q_norm", queryWidth, &weights->queryNorm},
                                                std::tuple{"k_norm", width, &weights->keyNorm}}) {
            const Index columns = declaredColumns(name, 1, config.d_k());
            if (Status s = read(name, 1, columns == whole ? whole : config.d_k(), n); !s) return Error{s.error()};
            *into = n.row(0);
        }
        if (const auto eps = json.find("qk_norm_epsilon"); eps != json.end()) {
            if (!eps->is_number() || !std::isfinite(eps->get<double>()) || eps->get<double>() <= 0)
                return Error{"weights.qk_norm_epsilon: must be a number above 0"};
            weights->queryKeyNormEpsilon = eps->get<float>();
        }
    }
    provenance.heads.clear();
    if (const auto origins = json.find("head_origins"); origins != json.end() && origins->is_array()) {
        for (const Json& o : *origins) {
            const auto origin =
                o.is_string() ? parseName(kHeadOriginNames, o.get_ref<const std::string&>()) : std::nullopt;
            if (!origin) return Error{"weights.head_origins: each must be one of " + allowedNames(kHeadOriginNames)};
            provenance.heads.push_back(*origin);
        }
    }
    return std::shared_ptr<const AttentionWeights>(std::move(weights));
}

Status viewFromJson(const Json& json, ViewOptions& view)
{
    if (!json.is_object()) return Error{"view: must be an object"};
    const auto text = [&](const char* key, std::string& into) {
        if (const auto v = json.find(key); v != json.end() && v->is_string()) into = v->get<std::string>();
    };
    const auto whole = [&](const char* key, Index& into, Index offset) -> Status {
        const auto v = json.find(key);
        if (v == json.end()) return {};
        if (!v->is_number_integer() || v->get<long long>() < offset || v->get<long long>() > (1 << 20))
            return Error{std::string("view.") + key + ": must be a whole number from " + std::to_string(offset)};
        into = static_cast<Index>(v->get<long long>() - offset);
        return {};
    };
    text("tab", view.tab);
    text("colormap", view.colormap);
    text("show", view.show);
    if (Status s = whole("head", view.head, 1); !s) return s;
    if (Status s = whole("query", view.query, 0); !s) return s;
    if (Status s = whole("key", view.key, 0); !s) return s;
    if (const auto v = json.find("average_of_heads"); v != json.end() && v->is_boolean()) view.averageOfHeads = *v;
    if (const auto v = json.find("block_maxima"); v != json.end() && v->is_boolean()) view.blockMaxima = *v;
    if (const auto v = json.find("query_span"); v != json.end()) {
        // Half-open, from 0, as --rows writes positions: [first, end) with end > first.
        const bool pair = v->is_array() && v->size() == 2 && (*v)[0].is_number_integer() && (*v)[1].is_number_integer();
        if (!pair || (*v)[0].get<std::int64_t>() < 0 || (*v)[1].get<std::int64_t>() <= (*v)[0].get<std::int64_t>() ||
            (*v)[1].get<std::int64_t>() > limits::maxTokens)
            return Error{"view.query_span: must be [first, end] with 0 <= first < end <= " +
                         std::to_string(limits::maxTokens) + " (positions from 0, end excluded)"};
        view.query = (*v)[0].get<Index>();
        view.querySpanEnd = (*v)[1].get<Index>();
    }
    if (const auto v = json.find("model_heads_off"); v != json.end()) {
        // Checked against the model when it is loaded; here only that it is a short list of short texts.
        constexpr std::size_t maxHeads = 1 << 16, maxText = 64;
        if (!v->is_array() || v->size() > maxHeads)
            return Error{"view.model_heads_off: must be a list of heads as --ablate writes them (\"3.2\")"};
        view.modelHeadsOff.clear();
        for (const Json& item : *v) {
            if (!item.is_string() || item.get<std::string>().empty() || item.get<std::string>().size() > maxText)
                return Error{"view.model_heads_off: each head is a text such as \"3.2\" (layer.head)"};
            view.modelHeadsOff.push_back(item.get<std::string>());
        }
    }
    if (const auto v = json.find("zoom"); v != json.end()) {
        if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() <= 0.0)
            return Error{"view.zoom: must be a number above 0"};
        view.zoom = v->get<double>();
    }
    if (const auto v = json.find("color_range"); v != json.end() && v->is_object()) {
        const std::string mode = v->value("mode", std::string(colorRangeModeName(ColorRange::Mode::Automatic)));
        if (!parseName(kColorRangeModeNames, mode, view.colorRange.mode))
            return Error{"view.color_range.mode: '" + mode + "' is not one of " + allowedNames(kColorRangeModeNames)};
        if (view.colorRange.mode == ColorRange::Mode::Fixed) {
            const auto low = v->find("low"), high = v->find("high");
            if (low == v->end() || high == v->end() || !low->is_number() || !high->is_number() ||
                !std::isfinite(low->get<double>()) || !std::isfinite(high->get<double>()) ||
                !(low->get<double>() < high->get<double>()))
                return Error{"view.color_range: a fixed range needs finite low < high"};
            view.colorRange.low = *low;
            view.colorRange.high = *high;
        }
    }
    return {};
}

Status embeddingsFromJson(const Json& json, Session& s)
{
    if (!json.is_object()) return Error{"embeddings: must be an object"};
    for (const auto& [key, matrix, file] : {std::tuple{"source", &s.sourceEmbeddings, &s.sourceEmbeddingsFile},
                                            std::tuple{"target", &s.targetEmbeddings, &s.targetEmbeddingsFile}}) {
        const auto found = json.find(key);
        if (found == json.end() || found->is_null()) continue;
        const auto shape = found->find("shape");
        if (!found->is_object() || shape == found->end() || !shape->is_array() || shape->size() != 2 ||
            !(*shape)[0].is_number_integer() || (*shape)[0].get<long long>() < 1 ||
            (*shape)[0].get<long long>() > (1 << 20))
            return Error{std::string("embeddings.") + key + ": needs a shape [rows, d_model]"};
        auto m =
            matrixFromJson(*found, std::string("embeddings.") + key, (*shape)[0].get<long long>(), s.config.d_model);
        if (!m) return Error{m.error()};
        *matrix = std::make_shared<const MatrixF>(std::move(*m));
        *file = found->value("file", std::string());
    }
    return {};
}

// Everything that is not JSON syntax: the document's fields, then the values' validity.
Expected<Session> sessionFromJson(const Json& doc)
{
    if (!doc.is_object() || doc.value("format", std::string()) != sessionFormatName)
        return Error{"not a QKV Studio session (its \"format\" is not \"" + std::string(sessionFormatName) + "\")"};
    const auto version = doc.find("version");
    if (version == doc.end() || !version->is_number_integer() || version->get<long long>() < 1)
        return Error{"the session has no valid \"version\""};
    if (version->get<long long>() > sessionFormatVersion)
        return Error{"the session was written by a newer QKV Studio (session version " +
                     std::to_string(version->get<long long>()) + "; this version reads up to " +
                     std::to_string(sessionFormatVersion) + "). Update QKV Studio to open it."};
    // Version 1 is the first; version 2 adds the optional "model" section, so a version 1 file
    // reads as it is. Migrations of older versions go here.
    Session s;
    const auto config = doc.find("config");
    if (config == doc.end()) return Error{"config: missing"};
    auto parsed = configFromJson(*config);
    if (!parsed) return Error{parsed.error()};
    s.config = std::move(*parsed);
    if (const auto e = doc.find("embeddings"); e != doc.end() && !e->is_null())
        if (Status st = embeddingsFromJson(*e, s); !st) return Error{st.error()};
    // The config's values decide the tensors' shapes: check them before reading any tensor.
    SentenceOverrides overrides;
    if (s.sourceEmbeddings) overrides.sourceRows = s.sourceEmbeddings->rows();
    if (s.targetEmbeddings) overrides.targetRows = s.targetEmbeddings->rows();
    // Checked as a streamed layer (the widest limits): a session's sentences may be as long as any
    // consumer can compute (a long prompt for export --pool); what the app or an export holds
    // is checked by each, and said at the sentence, not by refusing the file.
    if (const auto issues = validateConfig(s.config, overrides, streamedPlan()); !issues.empty())
        return Error{describe(issues)};
    if (const auto w = doc.find("weights"); w != doc.end() && !w->is_null()) {
        auto weights = weightsFromJson(*w, s.config, s.weightsProvenance);
        if (!weights) return Error{weights.error()};
        s.weights = std::move(*weights);
    }
    if (const auto m = doc.find("model"); m != doc.end() && !m->is_null()) {
        Expected<ShownModel> model = trainedModelFromJson(*m);
        if (!model) return Error{model.error()};
        s.model = std::move(model->model);
        s.modelLayer = model->layer;
    }
    if (const auto v = doc.find("view"); v != doc.end() && !v->is_null())
        if (Status st = viewFromJson(*v, s.view); !st) return Error{st.error()};
    if (s.weights) {
        if (const std::string problem = s.weights->shapeProblem(s.config.headCount); !problem.empty())
            return Error{"weights: " + problem};
    }
    return s;
}

}  // namespace

std::string_view headOriginName(HeadOrigin origin) { return nameOf(kHeadOriginNames, origin); }

std::string_view colorRangeModeName(ColorRange::Mode mode) { return nameOf(kColorRangeModeNames, mode); }

std::string headOriginText(const Session& session, Index head)
{
    if (const HeadPreset* preset = session.config.presetFor(head)) return std::string(presetTitle(preset->kind));
    // A trained model's own heads (not a preset over one, not an edit of its weights).
    if (session.model && !session.weights) return "trained";
    if (!session.weights) return "random";
    const auto& heads = session.weightsProvenance.heads;
    const HeadOrigin origin =
        head >= 0 && head < static_cast<Index>(heads.size()) ? heads[static_cast<std::size_t>(head)] : HeadOrigin::File;
    switch (origin) {
    case HeadOrigin::Edited: return "edited";
    case HeadOrigin::Generated: return "random";
    case HeadOrigin::File: return "from file";
    }
    return "from file";
}

std::string sessionToJson(const Session& s)
{
    Json doc = {{"format", sessionFormatName},
                {"version", s.model ? sessionFormatVersion : 1},
                {"app_version", QKV_VERSION},
                {"config", configToJson(s.config)},
                {"view", viewToJson(s.view)}};
    doc["weights"] = s.weights ? weightsToJson(s) : Json(nullptr);
    Json embeddings = Json::object();
    if (s.sourceEmbeddings) embeddings["source"] = embeddingToJson(*s.sourceEmbeddings, s.sourceEmbeddingsFile);
    if (s.targetEmbeddings) embeddings["target"] = embeddingToJson(*s.targetEmbeddings, s.targetEmbeddingsFile);
    doc["embeddings"] = embeddings.empty() ? Json(nullptr) : embeddings;
    if (s.model) doc["model"] = trainedModelToJson(*s.model, s.modelLayer);
    return doc.dump(2) + "\n";
}

Expected<Session> parseSession(std::string_view json, std::string_view sourceName)
{
    const std::string where = std::string(sourceName) + ": ";
    try {
        const Json doc = Json::parse(json.begin(), json.end());
        auto session = sessionFromJson(doc);
        if (!session) return Error{where + session.error()};
        return session;
    } catch (const Json::parse_error& error) {
        return Error{where + "not valid JSON (byte " + std::to_string(error.byte) +
                     "); the file may be truncated or corrupt"};
    } catch (const Json::exception& error) {
        return Error{where + "a field has the wrong type (" + std::string(error.what()) + ")"};
    } catch (const std::bad_alloc&) {
        return Error{where + "not enough memory to read it"};
    }
}

Status writeSession(const std::string& path, const Session& session)
{
    std::string text;
    try {
        text = sessionToJson(session);
    } catch (const std::exception& error) {
        return Error{path + ": cannot write the session (" + error.what() + ")"};
    }
    AtomicFile file;
    if (Status opened = file.open(path); !opened) return opened;
    file.write(text);
    return file.commit();
}

Expected<Session> readSession(const std::string& path)
{
    auto text = readFileBytes(path, maxSessionBytes);
    if (!text) return Error{text.error()};
    return parseSession(*text, path);
}

}  // namespace qkv
