#pragma once
// Helpers of the Train tab's tests: a small, fast plan, and waiting for a condition in an event
// loop that a signal wakes (never a sleep, never a spinning processEvents).

#include <QEventLoop>
#include <QObject>
#include <QSpinBox>
#include <QTimer>

#include <chrono>

#include "ui/train/train_settings_form.hpp"
#include "ui/train/training_plan.hpp"

namespace qkv::ui::testing {

// A limit that only a hang reaches (a loaded machine is several times slower).
inline constexpr int kHangMilliseconds = 60000;

// Runs an event loop until `done()` holds after an emission of `signal` by `sender` (checked
// first, and at every emission), or `milliseconds` passed. Returns done().
template <class Sender, class Signal, class Condition>
bool waitFor(Sender* sender, Signal signal, Condition done, int milliseconds = kHangMilliseconds)
{
    if (done()) return true;
    QEventLoop loop;
    QObject::connect(sender, signal, &loop, [&] {
        if (done()) loop.quit();
    });
    QTimer::singleShot(milliseconds, &loop, &QEventLoop::quit);
    loop.exec();
    return done();
}

// Runs an event loop for `milliseconds` (to see that nothing happens meanwhile).
inline void runEventsFor(int milliseconds)
{
    QEventLoop loop;
    QTimer::singleShot(milliseconds, &loop, &QEventLoop::quit);
    loop.exec();
}

// Reverse at a size that trains a step in well under a millisecond.
inline TrainingPlan smallPlan(long steps = 400)
{
    TrainingPlan plan;
    plan.settings = qkv::TrainingSettings::defaultsFor(qkv::TaskKind::Reverse);
    plan.settings.d_model = 16;
    plan.settings.headCount = 2;
    plan.settings.layers = 1;
    plan.settings.batch = 8;
    plan.settings.steps = steps;
    plan.settings.task.heldOutCount = 32;
    return plan;
}

// The same sizes in the form's fields.
inline void makeSmall(TrainSettingsForm& form, long steps = 400)
{
    form.dModelBox()->setValue(16);
    form.headsBox()->setValue(2);
    form.layersBox()->setValue(1);
    form.batchBox()->setValue(8);
    form.stepsBox()->setValue(static_cast<int>(steps));
}

}  // namespace qkv::ui::testing
