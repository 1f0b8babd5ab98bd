#include "ui/train/training_worker.hpp"

#include <QMetaObject>

namespace qkv::ui {

TrainingWorker::TrainingWorker(QObject* parent) : QObject(parent) {}

TrainingWorker::~TrainingWorker()
{
    stop();
    // No thread outlives the worker (it posts to it): each ends after the step it is in.
    for (auto& [control, thread] : retired_) thread.join();
}

void TrainingWorker::start(const TrainingPlan& plan, bool paused)
{
    stop();
    latest_.reset();
    auto control = std::make_shared<TrainingControl>();
    control->paused = paused;
    control_ = control;
    const TrainingLoopSettings settings{publishMilliseconds_, evaluations_};
    // The thread holds `control` (shared) and posts to this worker, which outlives it.
    thread_ = std::thread([this, control, plan, settings] {
        const auto notify = [this, control] {
            QMetaObject::invokeMethod(this, [this, control] { collect(control); }, Qt::QueuedConnection);
        };
        const auto fail = [this, control](const std::string& message) {
            QMetaObject::invokeMethod(
                this,
                [this, control, text = QString::fromStdString(message)] {
                    if (control == control_) emit failed(text);
                },
                Qt::QueuedConnection);
        };
        runTrainingLoop(plan, settings, *control, notify, fail);
        control->done = true;
    });
}

void TrainingWorker::collect(const std::shared_ptr<TrainingControl>& control)
{
    std::shared_ptr<const TrainingSnapshot> snapshot;
    {
        std::lock_guard lock(control->mutex);
        snapshot = std::move(control->mailbox);
        control->mailbox.reset();
        control->collectPosted = false;
    }
    if (control != control_ || !snapshot) return;  // a stopped run's last words
    latest_ = std::move(snapshot);
    emit published(latest_);
}

void TrainingWorker::pause()
{
    if (control_) control_->command([](TrainingControl& c) { c.paused = true; });
}

void TrainingWorker::resume()
{
    if (control_) control_->command([](TrainingControl& c) {
            c.paused = false;
            c.stepsRequested = 0;
        });
}

void TrainingWorker::step()
{
    if (control_) control_->command([](TrainingControl& c) {
            c.paused = true;
            ++c.stepsRequested;
        });
}

bool TrainingWorker::isPaused() const
{
    if (!control_) return false;
    std::lock_guard lock(control_->mutex);
    return control_->paused;
}

bool TrainingWorker::isFinished() const { return control_ && control_->finished; }

void TrainingWorker::stop()
{
    joinFinished();
    if (!control_) return;
    control_->command([](TrainingControl& c) { c.stop = true; });
    retired_.emplace_back(std::move(control_), std::move(thread_));
    control_.reset();
}

void TrainingWorker::joinFinished()
{
    // Threads that have returned are joined at once; one still in its last step waits for a
    // later call or the destructor, never holding up the GUI thread.
    std::erase_if(retired_, [](auto& entry) {
        if (!entry.first->done) return false;
        entry.second.join();
        return true;
    });
}

}  // namespace qkv::ui
