#pragma once
// What `qkv-studio train` writes beside the sessions (docs/formats.md, "Training output"):
//   log.csv      one row per optimiser step of every variant: step,variant,loss,accuracy,seconds
//   report.json  per variant its size, time, losses, held-out accuracy, vocabulary and every
//                head's effective rank and task scores; then the factored / full comparison:
//                which variant reached the task's target first, at what attention-parameter
//                cost, and each full W_i's singular values with the count carrying 99% of
//                their energy.
// The key names are a contract with the scripts that read the report.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/training/training_run.hpp"

namespace qkv {

// The held-out number a task is trained to, and the threshold that counts as learned:
//   reverse, copy, sort  whole-sequence accuracy >= 99% (every output token right)
//   translate            token accuracy >= 95%
//   induction            token accuracy >= 95% on the second copy (every scored token there is
//                        predictable only by looking back one period: the induction head's job)
struct TrainingTarget {
    std::string_view metric;  // the report's key: "heldout_sequence_accuracy" or "heldout_accuracy"
    double threshold = 0.0;
    std::string description() const;  // "held-out whole-sequence accuracy >= 99%"
};
TrainingTarget trainingTarget(TaskKind task);

// The first evaluated point of `curve` at or above the task's target.
std::optional<CurvePoint> firstAtTarget(const std::vector<CurvePoint>& curve, TaskKind task);

// The runs of one `train` command, in the order trained; every run has the same task.
// Each variant is named by its ScoreForm spelling ("factored", "full").
std::string trainingLogCsv(const std::vector<const TrainingRun*>& runs);
// Scores every head on each run's held-out examples (task_scores.hpp). A run never evaluated
// has null held-out numbers and has not reached the target.
std::string trainingReportJson(const std::vector<const TrainingRun*>& runs);

}  // namespace qkv
