#pragma once
// Builds what the GUI shows of runs in progress (training_snapshot.hpp). Runs on the training
// thread, between steps, so the GUI thread never computes a trace or a spectrum.

#include <vector>

#include "core/training/training_run.hpp"
#include "ui/train/training_snapshot.hpp"

namespace qkv::ui {

class SnapshotMaker {
public:
    // `runs` share one task and seed (the variants of one plan): the example is theirs.
    explicit SnapshotMaker(const qkv::TaskData& data);

    const qkv::TaskExample& example() const { return example_; }
    // Every run as it is now, on the shown example. `steps` is what each has done.
    std::shared_ptr<const TrainingSnapshot> make(const std::vector<const qkv::TrainingRun*>& runs,
                                                 TrainingSnapshot::State state, long totalSteps,
                                                 double seconds, double stepsPerSecond) const;

private:
    qkv::TaskExample example_;
    std::vector<qkv::TaskExample> scored_;  // the held-out examples the head scores read
    std::vector<std::string> sourceTokens_, targetInputTokens_, targetTokens_;
    qkv::TaskKind task_;
};

// The held-out example the views show: the longest of the first few (more tokens, a clearer
// pattern), the first on a tie, so the same data always show the same example.
const qkv::TaskExample& shownExample(const qkv::TaskData& data);

}  // namespace qkv::ui
