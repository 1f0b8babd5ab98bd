#pragma once
// The body of a training thread (TrainingWorker starts it): builds the plan's runs and drives the
// one training loop (core/training/training_loop.hpp: the steps and the held-out evaluations)
// over them, waiting while paused and leaving snapshots in the mailbox. Free of Qt: it talks to
// the GUI thread only through TrainingControl and two callbacks.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "core/training/training_loop.hpp"
#include "ui/train/training_plan.hpp"
#include "ui/train/training_snapshot.hpp"

namespace qkv::ui {

// What one run's thread and the GUI thread share. Commands (paused, stepsRequested, stop) are
// read between steps; the mailbox holds the newest snapshot not yet collected.
struct TrainingControl {
    std::mutex mutex;
    std::condition_variable wake;
    bool paused = false;
    int stepsRequested = 0;
    bool stop = false;
    std::shared_ptr<const TrainingSnapshot> mailbox;
    bool collectPosted = false;   // the GUI thread has been told to collect the mailbox
    std::atomic<bool> done{false};  // the thread has returned
    std::atomic<bool> finished{false};  // every step was done

    // Sets the flags under the lock and wakes the thread.
    void command(const std::function<void(TrainingControl&)>& change);
};

struct TrainingLoopSettings {
    int publishMilliseconds = 250;
    long evaluations = qkv::evaluationsPerRun;  // EvaluationSchedule::evaluations
};

// Runs until every step is done or control.stop. `notify` is called (from this thread) when the
// mailbox was empty and now holds a snapshot; `fail` when the runs cannot be built.
void runTrainingLoop(const TrainingPlan& plan, const TrainingLoopSettings& settings, TrainingControl& control,
                     const std::function<void()>& notify, const std::function<void(const std::string&)>& fail);

}  // namespace qkv::ui
