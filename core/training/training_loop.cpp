// The one training loop and its evaluation schedule (training_loop.hpp).
#include "core/training/training_loop.hpp"

#include <algorithm>
#include <utility>

namespace qkv {

long EvaluationSchedule::interval() const
{
    if (evaluations < 1) return std::max(1L, steps);
    return std::max(1L, (steps + evaluations - 1) / evaluations);
}

bool EvaluationSchedule::evaluatesAt(long step) const
{
    return step == 0 || step == steps || (step > 0 && step < steps && step % interval() == 0);
}

long EvaluationSchedule::count() const
{
    if (steps < 1) return 1;
    const long every = interval();
    // Step 0, the multiples of the interval, and the last step unless it is one of them.
    return 1 + steps / every + (steps % every != 0 ? 1 : 0);
}

TrainingLoop::TrainingLoop(std::vector<TrainingRun*> runs, long evaluations) : runs_(std::move(runs))
{
    schedule_.steps = runs_.empty() ? 0 : runs_.front()->settings().steps;
    schedule_.evaluations = evaluations;
}

long TrainingLoop::stepsDone() const { return runs_.empty() ? 0 : runs_.front()->stepsDone(); }

void TrainingLoop::evaluate()
{
    for (TrainingRun* run : runs_) run->evaluate();
}

TrainingEnd TrainingLoop::run(TrainingDriver& driver)
{
    if (stepsDone() == 0 && !runs_.empty()) evaluate();
    driver.started();
    for (long done = stepsDone(); done < schedule_.steps;) {
        if (!driver.proceed()) return TrainingEnd::Stopped;
        for (TrainingRun* run : runs_) run->step();
        ++done;
        if (schedule_.evaluatesAt(done)) evaluate();
        driver.stepped(done);
    }
    return TrainingEnd::Finished;
}

}  // namespace qkv
