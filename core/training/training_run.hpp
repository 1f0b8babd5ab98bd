#pragma once
// One model learning one task: parameters, optimiser, data stream and curves. The one training
// loop (training_loop.hpp) steps it for the app's Train tab and `qkv-studio train`; it never
// starts a thread of its own.
// Same settings and thread count, same bits.

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/trainable/adamw.hpp"
#include "core/trainable/model_forward.hpp"
#include "core/trainable/model_parameters.hpp"
#include "core/training/task_scores.hpp"
#include "core/training/tasks.hpp"

namespace qkv {

// The learning rate over a run: AdamW's linear warm-up, then a cosine from the learning rate down
// to finalLearningRateFraction of it at step `steps` (Loshchilov & Hutter's SGDR without
// restarts), constant after that. A constant rate leaves held-out accuracy jumping by several
// percent from one evaluation to the next (docs/training.md); the decay lets it settle.
inline constexpr double finalLearningRateFraction = 0.1;

struct TrainingSettings {
    TaskSettings task;
    ScoreForm variant = ScoreForm::Factored;
    Index d_model = 64;
    Index headCount = 4;
    Index layers = 1;          // per stack (encoder and decoder); induction: decoder layers (default 2)
    long steps = 2000;         // the learning rate's cosine ends here; step() goes on at its floor
    Index batch = 32;
    AdamWSettings optimizer;   // learning rate lives here
    std::uint64_t seed = 0;    // weights; the task's seed draws the data
    // Defaults per task (layers, MLP, norms, steps) as the targets in docs/training.md use them.
    static TrainingSettings defaultsFor(TaskKind kind);
};

struct CurvePoint {
    long step = 0;
    double seconds = 0.0;      // training time so far (the optimiser's work, not evaluation)
    double loss = 0.0;         // training loss of this step's batch
    double accuracy = 0.0;     // training token accuracy of this batch
    // Held-out numbers, present at evaluation steps (NaN otherwise). Whole sequences are right
    // when every token is (teacher forcing): exactly when greedy decoding writes the answer.
    double heldOutLoss = std::numeric_limits<double>::quiet_NaN();
    double heldOutAccuracy = std::numeric_limits<double>::quiet_NaN();          // token accuracy
    double heldOutSequenceAccuracy = std::numeric_limits<double>::quiet_NaN();  // whole sequences
};

// The model a run trains: the settings' size and variant, the task's layout (an encoder for
// sequence-to-sequence tasks; the MLP, norms and positions of TrainingSettings::defaultsFor's
// table in docs/training.md), the data's vocabulary and longest sequence.
ModelSpec trainingModelSpec(const TrainingSettings& settings, const TaskData& data);

// The learning rate step `step` (from 1) trains with, warm-up aside (AdamW applies that).
double scheduledLearningRate(const TrainingSettings& settings, long step);

class TrainingRun {
public:
    // Checks the settings (the training limits of training_limits.hpp, then AdamW's) and builds
    // the data; an Error says what is wrong with which setting.
    static Expected<std::unique_ptr<TrainingRun>> create(const TrainingSettings& settings);

    // One optimiser step on the next batch of the stream; returns its curve point.
    CurvePoint step();
    // Held-out loss and accuracy now (appended to the curve's last point as well; before the
    // first step, a point for step 0 is added).
    BatchLoss evaluate();
    long stepsDone() const;
    const std::vector<CurvePoint>& curve() const { return curve_; }

    const TrainingSettings& settings() const { return settings_; }
    const ModelSpec& spec() const { return parameters_.spec; }
    const ModelParameters<float>& parameters() const { return parameters_; }
    const TaskData& data() const { return *data_; }

private:
    TrainingRun() = default;
    void followSchedule();
    TrainingSettings settings_;
    std::shared_ptr<const TaskData> data_;
    ModelParameters<float> parameters_;
    ModelParameters<float> gradient_;
    std::unique_ptr<AdamW<float>> optimizer_;
    ForwardWorkspace<float> workspace_;  // activations of the steps and evaluations, reused
    std::vector<CurvePoint> curve_;
    std::uint64_t nextExample_ = 0;
    double seconds_ = 0.0;
};

}  // namespace qkv
