#pragma once
// What the training thread hands to the GUI thread, at least twice a second: each variant's
// model as it is now (TrainedModel::snapshot: weights, vocabulary, curve), that model's attention
// on one held-out example through every attention layer, and what its heads do. Immutable once
// published, so the GUI thread reads it without a lock while training goes on.

#include <memory>
#include <string>
#include <vector>

#include "core/trainable/model_forward.hpp"
#include "core/training/task_scores.hpp"
#include "core/training/tasks.hpp"
#include "core/training/trained_model.hpp"

namespace qkv::ui {

// One variant (factored or full) at one moment.
struct TrainedVariant {
    std::shared_ptr<const qkv::TrainedModel> model;
    // The shown example through every attention layer (attentionLayers(spec) order).
    qkv::ModelTrace trace;
    // Every head of every layer on a few held-out examples: the task's scores, and the singular
    // values of W_i with how many carry 99% of its energy.
    std::vector<qkv::HeadScores> heads;

    qkv::ScoreForm variant() const { return model->parameters.spec.scoreForm; }
    // The scores of head `head` of attention layer `layer`, or null.
    const qkv::HeadScores* scores(qkv::Index layer, qkv::Index head) const;
};

struct TrainingSnapshot {
    enum class State {
        Running,
        Paused,    // waiting for Resume or Step
        Finished,  // every step done
    };

    std::vector<TrainedVariant> variants;  // as TrainingPlan::variants() lists them
    // The held-out example every variant is shown on, and its tokens as the model reads them.
    qkv::TaskExample example;
    std::vector<std::string> sourceTokens;       // n_s (empty for decoder-only tasks)
    std::vector<std::string> targetInputTokens;  // n_t: <bos> y_1 .. y_n, or the sequence itself
    std::vector<std::string> targetTokens;       // the words of y without <bos>/<eos> (empty for decoder-only)

    long steps = 0;       // done by each variant
    long totalSteps = 0;  // asked for
    double seconds = 0;   // wall time spent training (pauses excluded)
    double stepsPerSecond = 0;  // recently, counting one step of every variant as one
    State state = State::Running;

    // Seconds until every step is done at the recent pace; negative when not known yet.
    double secondsLeft() const;
    // The tokens the rows (queries) and columns (keys) of attention layer `layer` belong to.
    const std::vector<std::string>& queryTokens(const qkv::AttentionLayerInfo& layer) const;
    const std::vector<std::string>& keyTokens(const qkv::AttentionLayerInfo& layer) const;
};

}  // namespace qkv::ui
