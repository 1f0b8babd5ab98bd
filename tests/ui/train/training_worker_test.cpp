// Training runs on the worker's thread: snapshots arrive while the curve grows, Pause stops the
// steps, Step does exactly one, a stopped run delivers nothing more, "both" steps the two
// variants together, and settings the run refuses come back as a message.

#include <QSignalSpy>

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "tests/ui/train/train_test_support.hpp"
#include "ui/train/training_worker.hpp"

namespace qkv::ui::testing {
namespace {

using State = TrainingSnapshot::State;

class WorkerTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        worker.setPublishInterval(30);
        worker.setEvaluations(20);
    }
    bool waitForSnapshot(const std::function<bool(const TrainingSnapshot&)>& done)
    {
        return waitFor(&worker, &TrainingWorker::published,
                       [&] { return worker.latest() && done(*worker.latest()); });
    }
    TrainingWorker worker;
};

TEST_F(WorkerTest, SnapshotsArriveAndTheCurveGrowsUntilTheLastStep)
{
    QSignalSpy published(&worker, &TrainingWorker::published);
    worker.start(smallPlan(300));
    ASSERT_TRUE(waitForSnapshot([](const TrainingSnapshot& s) { return s.steps > 0; }));
    const auto first = worker.latest();
    ASSERT_EQ(first->variants.size(), 1u);
    // A point per step, and one for the untrained model's evaluation at step 0.
    const std::size_t firstPoints = first->variants[0].model->curve.size();
    EXPECT_EQ(static_cast<long>(firstPoints), first->steps + 1);
    EXPECT_EQ(first->variants[0].model->curve.front().step, 0);
    EXPECT_TRUE(std::isfinite(first->variants[0].model->curve.front().heldOutAccuracy));
    ASSERT_TRUE(waitForSnapshot([](const TrainingSnapshot& s) { return s.state == State::Finished; }));
    const auto last = worker.latest();
    EXPECT_EQ(last->steps, 300);
    EXPECT_EQ(last->variants[0].model->curve.size(), 301u);
    EXPECT_GT(last->variants[0].model->curve.size(), firstPoints);
    EXPECT_GE(published.count(), 2);
    EXPECT_TRUE(worker.isFinished());
    // The shown example went through every attention layer, one matrix per head.
    const auto& layers = last->variants[0].trace.layers;
    ASSERT_FALSE(layers.empty());
    for (const auto& layer : layers) EXPECT_EQ(static_cast<long>(layer.attention.size()), 2);
    EXPECT_FALSE(last->sourceTokens.empty());
    EXPECT_FALSE(last->targetTokens.empty());
    EXPECT_FALSE(last->variants[0].heads.empty());
}

TEST_F(WorkerTest, PauseStopsSteppingAndStepDoesExactlyOne)
{
    worker.start(smallPlan(100000));
    ASSERT_TRUE(waitForSnapshot([](const TrainingSnapshot& s) { return s.steps > 0; }));
    worker.pause();
    EXPECT_TRUE(worker.isPaused());
    ASSERT_TRUE(waitForSnapshot([](const TrainingSnapshot& s) { return s.state == State::Paused; }));
    const long pausedAt = worker.latest()->steps;
    QSignalSpy published(&worker, &TrainingWorker::published);
    runEventsFor(200);
    EXPECT_EQ(published.count(), 0) << "a paused run published";
    worker.step();
    ASSERT_TRUE(waitForSnapshot([&](const TrainingSnapshot& s) { return s.steps != pausedAt; }));
    EXPECT_EQ(worker.latest()->steps, pausedAt + 1);
    EXPECT_EQ(worker.latest()->state, State::Paused);
    worker.resume();
    ASSERT_TRUE(waitForSnapshot([&](const TrainingSnapshot& s) { return s.steps > pausedAt + 1; }));
    EXPECT_EQ(worker.latest()->state, State::Running);
}

TEST_F(WorkerTest, AStoppedRunDeliversNothingMore)
{
    worker.start(smallPlan(100000));
    ASSERT_TRUE(waitForSnapshot([](const TrainingSnapshot& s) { return s.steps > 0; }));
    worker.stop();
    EXPECT_FALSE(worker.hasRun());
    QSignalSpy published(&worker, &TrainingWorker::published);
    runEventsFor(150);
    EXPECT_EQ(published.count(), 0);
}

TEST_F(WorkerTest, BothVariantsStepTogetherOnTheSameExample)
{
    TrainingPlan plan = smallPlan(40);
    plan.bothVariants = true;
    worker.start(plan);
    ASSERT_TRUE(waitForSnapshot([](const TrainingSnapshot& s) { return s.state == State::Finished; }));
    const auto s = worker.latest();
    ASSERT_EQ(s->variants.size(), 2u);
    EXPECT_EQ(s->variants[0].variant(), qkv::ScoreForm::Factored);
    EXPECT_EQ(s->variants[1].variant(), qkv::ScoreForm::Full);
    EXPECT_EQ(s->variants[0].model->curve.size(), 41u);
    EXPECT_EQ(s->variants[1].model->curve.size(), 41u);
    // The full model's heads have a W_i spectrum of d_model values.
    for (const qkv::HeadScores& h : s->variants[1].heads) EXPECT_EQ(h.singularValues.size(), 16u);
}

TEST_F(WorkerTest, SettingsTheRunRefusesComeBackAsAMessage)
{
    TrainingPlan plan = smallPlan();
    plan.settings.task.kind = qkv::TaskKind::Translate;
    plan.settings.task.pairsFile = "/nonexistent/pairs.tsv";
    QSignalSpy failed(&worker, &TrainingWorker::failed);
    worker.start(plan);
    ASSERT_TRUE(failed.count() > 0 || failed.wait(kHangMilliseconds));
    EXPECT_TRUE(failed.first().first().toString().contains(QStringLiteral("pairs.tsv")))
        << failed.first().first().toString().toStdString();
    EXPECT_EQ(worker.latest(), nullptr);
}

TEST(TrainingWorkerSchedule, EvaluatesAsTheOneScheduleSays)
{
    // The default schedule (qkv::EvaluationSchedule): a 120-step run is evaluated at step 0 and
    // every 3rd step, 41 times, as `qkv-studio train` does (train_cli_test.cpp).
    TrainingWorker worker;
    worker.setPublishInterval(30);
    worker.start(smallPlan(120));
    ASSERT_TRUE(waitFor(&worker, &TrainingWorker::published,
                        [&] { return worker.latest() && worker.latest()->state == State::Finished; }));
    const qkv::EvaluationSchedule schedule{120};
    std::vector<long> evaluated, expected;
    for (const qkv::CurvePoint& point : worker.latest()->variants[0].model->curve)
        if (std::isfinite(point.heldOutLoss)) evaluated.push_back(point.step);
    for (long step = 0; step <= 120; ++step)
        if (schedule.evaluatesAt(step)) expected.push_back(step);
    EXPECT_EQ(evaluated, expected);
    EXPECT_EQ(static_cast<long>(evaluated.size()), schedule.count());
    EXPECT_EQ(schedule.count(), 41);
}

}  // namespace
}  // namespace qkv::ui::testing
