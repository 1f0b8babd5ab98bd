// The one training loop (core/training/training_loop.hpp): its evaluation schedule, the steps it
// evaluates a run at, runs stepped in turn, and a driver that stops it.
#include <cmath>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "core/training/training_loop.hpp"

namespace qkv {
namespace {

std::unique_ptr<TrainingRun> tinyRun(long steps, ScoreForm variant = ScoreForm::Factored)
{
    TrainingSettings settings = TrainingSettings::defaultsFor(TaskKind::Copy);
    settings.variant = variant;
    settings.d_model = 8;
    settings.headCount = 2;
    settings.batch = 4;
    settings.steps = steps;
    settings.task.heldOutCount = 8;
    Expected<std::unique_ptr<TrainingRun>> run = TrainingRun::create(settings);
    EXPECT_TRUE(run.ok()) << run.error();
    return run.ok() ? std::move(run).value() : nullptr;
}

std::vector<long> evaluatedSteps(const TrainingRun& run)
{
    std::vector<long> steps;
    for (const CurvePoint& point : run.curve())
        if (std::isfinite(point.heldOutLoss)) steps.push_back(point.step);
    return steps;
}

TEST(EvaluationSchedule, TheUntrainedModelEveryIntervalRoundedUpAndTheLastStep)
{
    const EvaluationSchedule run120{120};
    EXPECT_EQ(run120.interval(), 3);  // 120 / 50 rounded up: at most 50 evaluations after step 0
    EXPECT_EQ(run120.count(), 41);
    EXPECT_TRUE(run120.evaluatesAt(0));
    EXPECT_TRUE(run120.evaluatesAt(3));
    EXPECT_FALSE(run120.evaluatesAt(2));
    EXPECT_TRUE(run120.evaluatesAt(120));
    EXPECT_EQ((EvaluationSchedule{2000}.interval()), 40);
    EXPECT_EQ((EvaluationSchedule{2000}.count()), 51);
    EXPECT_EQ((EvaluationSchedule{10}.interval()), 1);
    EXPECT_EQ((EvaluationSchedule{10}.count()), 11);
    const EvaluationSchedule run101{101};
    EXPECT_EQ(run101.interval(), 3);
    EXPECT_EQ(run101.count(), 35);  // 0, 3 .. 99, and 101
    EXPECT_TRUE(run101.evaluatesAt(101));
    const EvaluationSchedule none{7, 0};
    EXPECT_EQ(none.interval(), 7);
    EXPECT_EQ(none.count(), 2);
    // count() is the number of steps evaluatesAt() names, for any length.
    for (long steps = 1; steps <= 400; ++steps)
        for (const long evaluations : {0L, 1L, 7L, 50L}) {
            const EvaluationSchedule schedule{steps, evaluations};
            long named = 0;
            for (long step = 0; step <= steps; ++step) named += schedule.evaluatesAt(step) ? 1 : 0;
            ASSERT_EQ(named, schedule.count()) << steps << " steps, " << evaluations << " evaluations";
            ASSERT_LE(schedule.count(), std::max(evaluations, 1L) + 2);
        }
}

TEST(TrainingLoop, EvaluatesARunAtTheSchedulesSteps)
{
    const auto run = tinyRun(120);
    TrainingDriver driver;
    TrainingLoop loop({run.get()});
    EXPECT_EQ(loop.run(driver), TrainingEnd::Finished);
    EXPECT_EQ(run->stepsDone(), 120);
    std::vector<long> expected;
    for (long step = 0; step <= 120; ++step)
        if (loop.schedule().evaluatesAt(step)) expected.push_back(step);
    EXPECT_EQ(evaluatedSteps(*run), expected);
    EXPECT_EQ(static_cast<long>(evaluatedSteps(*run).size()), 41);
}

// Records the hooks' order; stops before step `stopBefore`.
class RecordingDriver : public TrainingDriver {
public:
    explicit RecordingDriver(long stopBefore) : stopBefore_(stopBefore) {}
    void started() override { events.push_back(-1); }
    bool proceed() override { return ++asked < stopBefore_; }
    void stepped(long done) override { events.push_back(done); }
    std::vector<long> events;  // -1: started, else a step done
    long asked = 0;

private:
    long stopBefore_;
};

TEST(TrainingLoop, StepsRunsInTurnAndADriverStopsIt)
{
    const auto factored = tinyRun(10, ScoreForm::Factored);
    const auto full = tinyRun(10, ScoreForm::Full);
    RecordingDriver driver(4);
    TrainingLoop loop({factored.get(), full.get()});
    EXPECT_EQ(loop.run(driver), TrainingEnd::Stopped);
    EXPECT_EQ(driver.events, (std::vector<long>{-1, 1, 2, 3}));
    EXPECT_EQ(factored->stepsDone(), 3);
    EXPECT_EQ(full->stepsDone(), 3);
    // Carries on where it stopped, without evaluating the (no longer untrained) models at step 0.
    RecordingDriver rest(100);
    EXPECT_EQ(TrainingLoop({factored.get(), full.get()}).run(rest), TrainingEnd::Finished);
    EXPECT_EQ(rest.events, (std::vector<long>{-1, 4, 5, 6, 7, 8, 9, 10}));
    EXPECT_EQ(evaluatedSteps(*factored), (std::vector<long>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
    EXPECT_EQ(evaluatedSteps(*full), evaluatedSteps(*factored));
}

}  // namespace
}  // namespace qkv
