#pragma once
// A session: everything needed to show exactly what the user saw (docs/architecture.md, "Layers" and "Files users exchange").
// Config (sentences, sizes, presets, ablations, ...) + the weights when the seed cannot
// regenerate them (loaded or edited) + user embeddings + where each came from + view options.
// It is the one thing serialised: the app's Save/Open and autosave, `export --session`,
// `export --format session`. File format: docs/formats.md ("Session: .qkv.json").

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/enum_names.hpp"
#include "core/common/expected.hpp"
#include "core/config/config.hpp"
#include "core/result/user_inputs.hpp"
#include "core/training/trained_model.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv {

// The newest version this QKV Studio reads and writes. Version 2 added the trained model (the
// "model" section); a file says the oldest version that reads it whole, so a session without a
// trained model is still written as version 1 and older QKV Studios keep opening it, while one
// with a model is refused by them rather than shown with random weights in its place.
inline constexpr int sessionFormatVersion = 2;
inline constexpr std::string_view sessionFormatName = "qkv-studio-session";
// A session file larger than this is refused before it is read (d_model 4096 with loaded
// weights is ~360 MB of base64).
inline constexpr std::size_t maxSessionBytes = std::size_t{1} << 30;

// Where a head's weights (before presets) come from.
enum class HeadOrigin { Generated, File, Edited };
// The session's spelling (weights.head_origins).
inline constexpr std::array<EnumName<HeadOrigin>, 3> kHeadOriginNames{{
    {HeadOrigin::Generated, "generated"},
    {HeadOrigin::File, "file"},
    {HeadOrigin::Edited, "edited"},
}};
std::string_view headOriginName(HeadOrigin origin);

struct WeightsProvenance {
    std::string file;   // the weights file (a checkpoint's absolute); empty when generated
    std::string layer;  // the checkpoint layer, when the file held several
    // One entry per head of the stored weights (File or Edited); empty for generated weights.
    std::vector<HeadOrigin> heads;
};

struct ColorRange {
    enum class Mode { Automatic, UnitInterval, Fixed };
    Mode mode = Mode::Automatic;   // Automatic: 0 to the 99th percentile of what is drawn
    double low = 0.0, high = 1.0;  // Fixed only

    bool operator==(const ColorRange&) const = default;
};
// The session's spelling (view.color_range.mode); the command line's --color-range takes the
// first two and spells a fixed range LOW:HIGH.
inline constexpr std::array<EnumName<ColorRange::Mode>, 3> kColorRangeModeNames{{
    {ColorRange::Mode::Automatic, "auto"},
    {ColorRange::Mode::UnitInterval, "unit"},
    {ColorRange::Mode::Fixed, "fixed"},
}};
std::string_view colorRangeModeName(ColorRange::Mode mode);

// What the views showed. Names are the app's (tab "heads", colormap "viridis", ...); core keeps
// them as text and the app falls back to its defaults for names it does not know.
struct ViewOptions {
    std::string tab = "heads";
    Index head = 0;   // 0-based here, from 1 in the file
    Index query = 0;  // token positions, from 0
    Index key = 0;
    // Queries [query, querySpanEnd) selected together (a span); 0: `query` alone. The file
    // writes "query_span": [query, end] only for a span of two or more.
    Index querySpanEnd = 0;
    std::string colormap = "viridis";
    std::string show = "attention";  // what the heads grid shows
    bool averageOfHeads = false;
    // A long layer's heads grid (each map kept pooled in blocks): each block's largest weight,
    // else its mean. Written only when set.
    bool blockMaxima = false;
    ColorRange colorRange;
    double zoom = 1.0;
    // Heads switched off anywhere in the whole model behind the layer (the Model and Predict
    // tabs), as --ablate writes them: "3.2" = layer 3 as --list-layers numbers it, head 2.
    std::vector<std::string> modelHeadsOff;

    bool operator==(const ViewOptions&) const = default;
};

struct Session {
    Config config;
    // Null while the weights are generated from the seed (then they are not stored); else the
    // loaded or edited weights before presets and scales, d_model x d_model / g d_k.
    std::shared_ptr<const AttentionWeights> weights;
    WeightsProvenance weightsProvenance;
    std::shared_ptr<const MatrixF> sourceEmbeddings;  // user X, n x d_model, or null
    std::shared_ptr<const MatrixF> targetEmbeddings;
    std::string sourceEmbeddingsFile;  // where they came from (for people)
    std::string targetEmbeddingsFile;
    ViewOptions view;
    // The model's own input (Config::embeddings = Model). Not stored: it is read again from the
    // checkpoint weightsProvenance names (core/checkpoint/model_input_loading.hpp).
    std::shared_ptr<const ModelInput> modelInput;
    // A model trained in the app (core/training/trained_model.hpp), or null. The document shows
    // its attention layer `modelLayer` (an attentionLayers(spec) index; the file names it): X_q
    // and X_kv are the hidden states the model computes from the typed sentences.
    std::shared_ptr<const TrainedModel> model;
    Index modelLayer = 0;

    UserInputs inputs() const
    {
        return {weights, sourceEmbeddings, targetEmbeddings, modelInput, model, modelLayer};
    }
};

// What a head is, for its title: the preset's words ("same meaning"), else "trained" (a trained
// model's own), "from file", "edited" or "random" (generated from the seed).
std::string headOriginText(const Session& session, Index head);

// The JSON text of a session (pretty-printed; matrices as base64 float32 little-endian). The
// version is 2 with a trained model, else 1 (see sessionFormatVersion).
std::string sessionToJson(const Session& session);
// Parses and checks a session: format and version (a newer version is refused, older ones
// are migrated), every field's type and spelling, tensor shapes against the config (a trained
// model's against its spec), finite values, and validateConfig. Messages start with
// `sourceName`. Never throws.
Expected<Session> parseSession(std::string_view json, std::string_view sourceName);

// Atomic write (the target is replaced only by a complete file); refuses targets that are not
// regular files.
Status writeSession(const std::string& path, const Session& session);
// Reads and parses `path` (a regular file of at most maxSessionBytes).
Expected<Session> readSession(const std::string& path);

}  // namespace qkv
