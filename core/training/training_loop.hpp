#pragma once
// The one training loop (llm.c's single loop): step every run, evaluate on the held-out set when
// the schedule says, tell the driver. `qkv-studio train` drives it and prints progress; the Train
// tab's worker drives it on its thread, posts snapshots and can pause or stop it. Neither has a
// loop of its own, so both evaluate a run at the same steps.

#include <vector>

#include "core/training/training_run.hpp"

namespace qkv {

// Held-out evaluations a run has besides the one of the untrained model: often enough to see
// when a target is reached, rarely enough to cost a few percent of the run.
inline constexpr long evaluationsPerRun = 50;

// When a run of `steps` is evaluated: at step 0 (the untrained model, where its curves start),
// every interval() steps, and at its last step. interval() rounds up, so a run has at most
// `evaluations` of them after step 0 (120 steps: every 3rd, 40 of them).
struct EvaluationSchedule {
    long steps = 0;
    long evaluations = evaluationsPerRun;  // < 1: only step 0 and the last step

    long interval() const;
    bool evaluatesAt(long step) const;
    // Evaluations of the whole run, step 0 included.
    long count() const;
};

// What drives the loop: a command line, a thread of the app. Every hook runs on the loop's thread.
class TrainingDriver {
public:
    virtual ~TrainingDriver() = default;
    // After the untrained models' evaluation, before the first step.
    virtual void started() {}
    // Before each step; may wait (a paused run). False ends the loop before that step.
    virtual bool proceed() { return true; }
    // After step `done` of every run and the evaluations due at it.
    virtual void stepped(long done) { (void)done; }
};

enum class TrainingEnd { Finished, Stopped };

class TrainingLoop {
public:
    // `runs` (borrowed; at least one) train for the same number of steps, the first run's. The
    // schedule's steps are theirs; `evaluations` defaults to evaluationsPerRun.
    explicit TrainingLoop(std::vector<TrainingRun*> runs, long evaluations = evaluationsPerRun);

    // Steps the runs in turn (one step of each, so variants advance together) from where they
    // are until every step is done or the driver stops.
    TrainingEnd run(TrainingDriver& driver);

    const EvaluationSchedule& schedule() const { return schedule_; }
    long stepsDone() const;

private:
    void evaluate();

    std::vector<TrainingRun*> runs_;
    EvaluationSchedule schedule_;
};

}  // namespace qkv
