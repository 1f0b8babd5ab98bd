#pragma once
// Training off the GUI thread. One thread per run owns its TrainingRun(s) (both variants of a
// plan, stepped in turn: one step of the factored model, one of the full one, so their curves
// advance together), and publishes a TrainingSnapshot at least every publishInterval while it
// runs, when it pauses, after a single step and at the end.
//
// The GUI thread never waits for the training thread: commands are flags the thread reads
// between steps, and a snapshot is left in a one-slot mailbox (a newer one replaces one not yet
// collected), so a slow GUI skips snapshots instead of queueing them. stop() returns at once;
// the old thread ends after the step it is in and nothing it does afterwards is delivered. Only
// the destructor waits (for at most one step), so that no thread outlives the worker.

#include <QObject>
#include <QString>

#include <memory>
#include <thread>
#include <vector>

#include "ui/train/training_loop.hpp"
#include "ui/train/training_plan.hpp"
#include "ui/train/training_snapshot.hpp"

namespace qkv::ui {

class TrainingWorker : public QObject {
    Q_OBJECT
public:
    explicit TrainingWorker(QObject* parent = nullptr);
    ~TrainingWorker() override;

    // Trains `plan` on a new thread (a run still going is stopped first). `paused`: builds the
    // models and publishes their untrained state, then waits for resume() or step().
    void start(const TrainingPlan& plan, bool paused = false);
    void pause();
    void resume();
    // One more step of every variant, while paused.
    void step();
    // Ends the run: see the top of this file. latest() is kept until the next start().
    void stop();

    // A run was started and not stopped (it may have finished all its steps).
    bool hasRun() const { return control_ != nullptr; }
    bool isPaused() const;
    bool isFinished() const;
    // The last snapshot delivered, or null.
    const std::shared_ptr<const TrainingSnapshot>& latest() const { return latest_; }

    // Longest time between two snapshots while running (default 250 ms: the views refresh at
    // least twice a second even when a snapshot arrives late).
    void setPublishInterval(int milliseconds) { publishMilliseconds_ = milliseconds; }
    // Held-out evaluations per run besides the untrained model's (default qkv::evaluationsPerRun,
    // spread evenly over its steps as qkv::EvaluationSchedule says).
    void setEvaluations(long count) { evaluations_ = count; }

signals:
    // A new snapshot of the current run (latest() is it).
    void published(std::shared_ptr<const qkv::ui::TrainingSnapshot> snapshot);
    // The current run could not be built (the settings or the task's data): what is wrong.
    void failed(const QString& message);

private:
    void collect(const std::shared_ptr<TrainingControl>& control);
    void joinFinished();

    std::shared_ptr<TrainingControl> control_;
    std::thread thread_;
    // Stopped runs whose thread may still be in its last step: joined once done, or at the end.
    std::vector<std::pair<std::shared_ptr<TrainingControl>, std::thread>> retired_;
    std::shared_ptr<const TrainingSnapshot> latest_;
    int publishMilliseconds_ = 250;
    long evaluations_ = qkv::evaluationsPerRun;
};

}  // namespace qkv::ui
