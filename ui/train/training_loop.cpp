#include "ui/train/training_loop.hpp"

#include <chrono>
#include <deque>
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

long evaluationInterval(long steps, int evaluations)
{
    if (evaluations < 1) return steps;
    return std::max(1L, (steps + evaluations - 1) / evaluations);
}

void runTrainingLoop(const TrainingPlan& plan, const TrainingLoopSettings& settings, TrainingControl& control,
                     const std::function<void()>& notify, const std::function<void(const std::string&)>& fail)
{
    std::vector<std::unique_ptr<qkv::TrainingRun>> runs;
    std::vector<const qkv::TrainingRun*> views;
    for (qkv::ScoreForm variant : plan.variants()) {
        auto run = qkv::TrainingRun::create(plan.settingsFor(variant));
        if (!run) return fail(run.error());
        views.push_back(run->get());
        runs.push_back(std::move(*run));
    }
    const SnapshotMaker maker(runs.front()->data());
    const long total = plan.settings.steps;
    const long interval = evaluationInterval(total, settings.evaluations);
    double trainingSeconds = 0;  // the optimiser's work and the evaluations
    double activeSeconds = 0;    // that and the snapshots: what the pace and the time left use
    PaceMeter pace;
    pace.add(0.0, 0);

    const auto publish = [&](TrainingSnapshot::State state) {
        auto snapshot = maker.make(views, state, total, trainingSeconds, pace.stepsPerSecond());
        bool tell = false;
        {
            std::lock_guard lock(control.mutex);
            control.mailbox = std::move(snapshot);
            tell = !std::exchange(control.collectPosted, true);
        }
        if (tell) notify();
    };

    // Where learning starts: the untrained models on the held-out set (a curve point at step 0).
    if (runs.front()->stepsDone() == 0)
        for (auto& run : runs) run->evaluate();
    TrainingSnapshot::State published = control.paused ? TrainingSnapshot::State::Paused : TrainingSnapshot::State::Running;
    publish(published);
    auto lastPublish = Clock::now();
    bool shownSinceStep = true;  // the last snapshot shows the last step
    for (long done = runs.front()->stepsDone(); done < total;) {
        bool single = false;
        {
            std::unique_lock lock(control.mutex);
            const bool waiting = control.paused && control.stepsRequested == 0 && !control.stop;
            if (waiting && (!shownSinceStep || published != TrainingSnapshot::State::Paused)) {
                lock.unlock();  // every pause is published: it shows where it stopped
                published = TrainingSnapshot::State::Paused;
                publish(published);
                shownSinceStep = true;
                lock.lock();
            }
            control.wake.wait(lock, [&] { return control.stop || !control.paused || control.stepsRequested > 0; });
            if (control.stop) return;
            single = control.paused;
            if (single) --control.stepsRequested;
        }
        const auto start = Clock::now();
        for (auto& run : runs) run->step();
        ++done;
        if (done % interval == 0 || done == total)
            for (auto& run : runs) run->evaluate();
        trainingSeconds += secondsSince(start);
        shownSinceStep = false;
        if (done == total) break;
        if (single || secondsSince(lastPublish) * 1000.0 >= settings.publishMilliseconds) {
            published = single ? TrainingSnapshot::State::Paused : TrainingSnapshot::State::Running;
            publish(published);
            lastPublish = Clock::now();
            shownSinceStep = true;
        }
        activeSeconds += secondsSince(start);
        pace.add(activeSeconds, done);
    }
    control.finished = true;
    publish(TrainingSnapshot::State::Finished);
}

}  // namespace qkv::ui
