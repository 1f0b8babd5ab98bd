#pragma once
// Config (+ optional user weights and embeddings) -> one immutable Result.
// The single entry point the GUI and the command line share.

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/attention/multi_head_attention.hpp"
#include "core/common/expected.hpp"
#include "core/config/config.hpp"
#include "core/config/validation.hpp"
#include "core/embedding/model_own_input.hpp"
#include "core/presets/head_presets.hpp"
#include "core/text/tokenizer.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv {

struct TrainedModel;     // core/training/trained_model.hpp
struct PretrainedModel;  // core/pretrained/pretrained_model.hpp

// What the user supplied instead of the generated defaults. Shared and immutable: a request
// copies pointers, never matrices.
struct UserInputs {
    std::shared_ptr<const AttentionWeights> weights;     // replaces the seeded initialisation
    std::shared_ptr<const MatrixF> sourceEmbeddings;     // replaces generated source X (n_src x d_model)
    std::shared_ptr<const MatrixF> targetEmbeddings;     // replaces generated target X (n_tgt x d_model)
    // The model's own tokenizer and tables (a checkpoint's first layer), read when
    // Config::embeddings is Model for each sentence without user embeddings.
    std::shared_ptr<const ModelInput> modelInput;
    // A model trained in the app and the attention layer shown (an attentionLayers(spec) index):
    // X_q, X_kv and the token labels come from running the model on the typed sentences, the
    // weights from the layer (or from `weights` when the user edited them); core/pipeline/
    // trained_layer.hpp.
    std::shared_ptr<const TrainedModel> trainedModel;
    Index trainedLayer = 0;
};

// The generated weights of the last configuration asked for, kept by the caller (the app's
// document) so that typing a sentence or dragging a scale slider skips regenerating
// 4 d_model^2 random numbers (8 ms at d_model 512). Thread-safe; no global state.
class GeneratedWeightsCache {
public:
    std::shared_ptr<const AttentionWeights> get(const Config& config);
    // Fitted positional heads and position-free bases of the head presets.
    PresetCache& presets() { return presets_; }

private:
    PresetCache presets_;
    struct Key {
        Index d_model = 0, keyValueWidth = 0;
        std::uint64_t seed = 0;
        WeightInit init = WeightInit::XavierUniform;
        bool withBias = false;
        bool operator==(const Key&) const = default;
    };
    std::mutex mutex_;
    std::optional<Key> key_;
    std::shared_ptr<const AttentionWeights> weights_;
};

struct Result {
    Config config;
    std::vector<Token> queryTokens;         // tokens of the sentence that gives the queries
    std::vector<Token> keyTokens;           // ... that gives the keys and values
    // With the model's own input, these are its subword tokens ("##ing", "·cat", "[CLS]").
    std::vector<std::string> queryLabels;   // token texts, or t0, t1, ... for user embeddings
    std::vector<std::string> keyLabels;     //   whose row count differs from the token count
    MatrixF queryInput;                     // X_q,  n_q x d_model
    MatrixF keyValueInput;                  // X_kv, n_k x d_model
    // The weights before the scale sliders: the user's or generated, with the head presets
    // applied (what the weights editor edits). Never null in a Result.
    std::shared_ptr<const AttentionWeights> unscaledWeights;
    // As used: unscaledWeights times the scales (the same object when every scale is 1).
    std::shared_ptr<const AttentionWeights> weights;
    AttentionResult attention;
    double computeMilliseconds = 0.0;       // wall time of compute(), for the status bar
    // The whole pretrained model this layer belongs to, when its input is the model's own and
    // the model runs whole (ModelInput::wholeModel), else null; the layer's model-order index.
    std::shared_ptr<const PretrainedModel> wholeModel;
    Index wholeModelLayer = -1;

    const HeadGrouping& grouping() const { return attention.grouping; }
};

// Problems of the model's own input (Config::embeddings = Model) found before computing: none
// is loaded, it has another d_model, or a sentence its tokenizer refuses or that is longer than
// its positions, each under its field (Embeddings, Source, Target). compute() includes them; the
// app and the command line call it to put each message where the user looks.
std::vector<ValidationIssue> modelInputIssues(const Config& config, const UserInputs& inputs);

// Validates everything first (config, shapes of user inputs, finiteness) and reports every
// problem in one message; never throws, never crashes on bad input. `cache` (optional) keeps
// generated weights between calls.
Expected<std::shared_ptr<const Result>> compute(const Config& config, const UserInputs& inputs = {},
                                                GeneratedWeightsCache* cache = nullptr);

}  // namespace qkv
