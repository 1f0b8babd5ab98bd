#include "ui/train/training_loop.hpp"

#include <chrono>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "ui/train/snapshot_maker.hpp"

namespace qkv::ui {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Steps per second over the last few seconds of training (pauses excluded): the pace now, not
// the average since the start, so that "time left" follows a machine that got busier.
class PaceMeter {
public:
    void add(double trainingSeconds, long steps)
    {
        samples_.emplace_back(trainingSeconds, steps);
        while (samples_.size() > 2 && trainingSeconds - samples_[1].first > kWindowSeconds) samples_.pop_front();
    }
    double stepsPerSecond() const
    {
        if (samples_.size() < 2) return 0.0;
        const double seconds = samples_.back().first - samples_.front().first;
        return seconds > 0 ? static_cast<double>(samples_.back().second - samples_.front().second) / seconds : 0.0;
    }

private:
    static constexpr double kWindowSeconds = 3.0;
    std::deque<std::pair<double, long>> samples_;
};

}  // namespace

void TrainingControl::command(const std::function<void(TrainingControl&)>& change)
{
    {
        std::lock_guard lock(mutex);
        change(*this);
    }
    wake.notify_all();
}

namespace {

using State = TrainingSnapshot::State;

// One thread's side of the training loop: the runs, their snapshots and what the thread shares
// with the GUI.
class ThreadDriver : public qkv::TrainingDriver {
public:
    ThreadDriver(std::vector<std::unique_ptr<qkv::TrainingRun>> runs, const TrainingPlan& plan,
                 const TrainingLoopSettings& settings, TrainingControl& control, const std::function<void()>& notify)
        : runs_(std::move(runs)), maker_(runs_.front()->data()), settings_(settings), control_(control),
          notify_(notify), total_(plan.settings.steps)
    {
        for (const auto& run : runs_) views_.push_back(run.get());
        pace_.add(0.0, 0);
    }

    void run()
    {
        std::vector<qkv::TrainingRun*> runs;
        for (const auto& r : runs_) runs.push_back(r.get());
        qkv::TrainingLoop loop(std::move(runs), settings_.evaluations);
        if (loop.run(*this) == qkv::TrainingEnd::Stopped) return;
        control_.finished = true;
        publish(State::Finished);
    }

    // Where learning starts: the untrained models, evaluated on the held-out set.
    void started() override { publish(control_.paused ? State::Paused : State::Running); }

    bool proceed() override
    {
        const std::optional<bool> single = nextCommand();
        if (!single) return false;  // stopped
        single_ = *single;
        stepStart_ = Clock::now();
        return true;
    }

    void stepped(long done) override
    {
        trainingSeconds_ += secondsSince(stepStart_);
        shownSinceStep_ = false;
        if (done == total_) return;  // the Finished snapshot follows
        if (single_ || secondsSince(lastPublish_) * 1000.0 >= settings_.publishMilliseconds)
            publish(single_ ? State::Paused : State::Running);
        activeSeconds_ += secondsSince(stepStart_);
        pace_.add(activeSeconds_, done);
    }

private:
    // Waits while paused. Empty: stop; else whether the next step was asked for alone (Step).
    std::optional<bool> nextCommand()
    {
        std::unique_lock lock(control_.mutex);
        const bool waiting = control_.paused && control_.stepsRequested == 0 && !control_.stop;
        if (waiting && (!shownSinceStep_ || published_ != State::Paused)) {
            lock.unlock();  // every pause is published: it shows where it stopped
            publish(State::Paused);
            lock.lock();
        }
        control_.wake.wait(lock, [&] { return control_.stop || !control_.paused || control_.stepsRequested > 0; });
        if (control_.stop) return std::nullopt;
        const bool single = control_.paused;
        if (single) --control_.stepsRequested;
        return single;
    }

    void publish(State state)
    {
        auto snapshot = maker_.make(views_, state, total_, trainingSeconds_, pace_.stepsPerSecond());
        bool tell = false;
        {
            std::lock_guard lock(control_.mutex);
            control_.mailbox = std::move(snapshot);
            tell = !std::exchange(control_.collectPosted, true);
        }
        if (tell) notify_();
        published_ = state;
        lastPublish_ = Clock::now();
        shownSinceStep_ = true;
    }

    std::vector<std::unique_ptr<qkv::TrainingRun>> runs_;
    std::vector<const qkv::TrainingRun*> views_;
    const SnapshotMaker maker_;
    const TrainingLoopSettings settings_;
    TrainingControl& control_;
    const std::function<void()>& notify_;
    const long total_;
    double trainingSeconds_ = 0;  // the optimiser's work and the evaluations
    double activeSeconds_ = 0;    // that and the snapshots: what the pace and the time left use
    PaceMeter pace_;
    State published_ = State::Running;
    Clock::time_point lastPublish_ = Clock::now();
    Clock::time_point stepStart_ = Clock::now();
    bool single_ = false;         // the step under way was asked for alone (Step)
    bool shownSinceStep_ = true;  // the last snapshot shows the last step
};

}  // namespace

void runTrainingLoop(const TrainingPlan& plan, const TrainingLoopSettings& settings, TrainingControl& control,
                     const std::function<void()>& notify, const std::function<void(const std::string&)>& fail)
{
    std::vector<std::unique_ptr<qkv::TrainingRun>> runs;
    for (qkv::ScoreForm variant : plan.variants()) {
        auto run = qkv::TrainingRun::create(plan.settingsFor(variant));
        if (!run) return fail(run.error());
        runs.push_back(std::move(*run));
    }
    ThreadDriver(std::move(runs), plan, settings, control, notify).run();
}

}  // namespace qkv::ui
