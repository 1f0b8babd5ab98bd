// TrainingRun: settings checked field by field, the model each task gets, a tiny model that
// learns, the same bits from the same settings, the curve, and whole-sequence accuracy that means
// exactly "greedy decoding writes the answer".
#include <cmath>
#include <functional>

#include <gtest/gtest.h>

#include "core/training/training_run.hpp"

namespace qkv {
namespace {

// A model small enough that a test trains it in a fraction of a second.
TrainingSettings tinySettings(TaskKind kind)
{
    TrainingSettings settings = TrainingSettings::defaultsFor(kind);
    settings.d_model = 32;
    settings.headCount = 4;
    settings.batch = 16;
    settings.steps = 300;
    settings.optimizer.learningRate = 5e-3;
    settings.optimizer.warmupSteps = 20;
    settings.task.heldOutCount = 32;
    return settings;
}

std::unique_ptr<TrainingRun> makeRun(const TrainingSettings& settings)
{
    Expected<std::unique_ptr<TrainingRun>> run = TrainingRun::create(settings);
    EXPECT_TRUE(run.ok()) << run.error();
    return run.ok() ? std::move(run).value() : nullptr;
}

std::string errorOf(const std::function<void(TrainingSettings&)>& change)
{
    TrainingSettings settings = TrainingSettings::defaultsFor(TaskKind::Reverse);
    change(settings);
    const Expected<std::unique_ptr<TrainingRun>> run = TrainingRun::create(settings);
    return run.ok() ? std::string() : run.error();
}

TEST(TrainingRun, ChecksEachSettingAndNamesIt)
{
    // The training limits' words (training_limits_test.cpp checks every field).
    EXPECT_EQ(errorOf([](TrainingSettings& s) { s.d_model = 2; }), "d_model must be between 4 and 1,024; 2 is not");
    EXPECT_EQ(errorOf([](TrainingSettings& s) { s.headCount = 3; }), "h must divide d_model 64; 3 does not");
    EXPECT_EQ(errorOf([](TrainingSettings& s) { s.optimizer.learningRate = std::nan(""); }),
              "learning rate must be between 1e-6 and 1; nan is not");
    EXPECT_EQ(errorOf([](TrainingSettings& s) { s.optimizer.beta1 = 1.0; }),
              "beta1 must be at least 0 and below 1 (it is 1)");
    EXPECT_EQ(errorOf([](TrainingSettings& s) { s.optimizer.beta2 = -0.5; }),
              "beta2 must be at least 0 and below 1 (it is -0.5)");
    EXPECT_EQ(errorOf([](TrainingSettings& s) { s.optimizer.epsilon = 0.0; }),
              "AdamW's epsilon must be greater than 0 and below 1 (it is 0)");
    EXPECT_EQ(errorOf([](TrainingSettings& s) { s.optimizer.weightDecay = 2.0; }),
              "the weight decay must be between 0 and 1 (it is 2)");
    EXPECT_EQ(errorOf([](TrainingSettings& s) { s.optimizer.clipNorm = -1.0; }),
              "the gradient clipping norm must be 0 (no clipping) or more (it is -1)");
    EXPECT_EQ(errorOf([](TrainingSettings& s) { s.optimizer.warmupSteps = -1; }),
              "the warm-up must be between 0 and 10,000,000 steps (it is -1)");
    EXPECT_EQ(errorOf([](TrainingSettings& s) { s.task.heldOutCount = 0; }),
              "the number of held-out examples must be between 1 and 100,000 (it is 0)");
    EXPECT_NE(errorOf([](TrainingSettings& s) {
                  s.task.kind = TaskKind::Translate;
                  s.task.pairsFile = "/nonexistent/pairs.tsv";
              }).find("/nonexistent/pairs.tsv"),
              std::string::npos);
    EXPECT_EQ(errorOf([](TrainingSettings&) {}), "");
}

TEST(TrainingRun, EachTaskGetsItsModel)
{
    for (const auto& entry : kTaskKindNames) {
        const TrainingSettings settings = TrainingSettings::defaultsFor(entry.value);
        EXPECT_EQ(settings.task.kind, entry.value);
        EXPECT_EQ(settings.d_model, 64);
        EXPECT_EQ(settings.headCount, 4);
        const std::unique_ptr<TrainingRun> run = makeRun(settings);
        ASSERT_TRUE(run);
        const ModelSpec& spec = run->spec();
        EXPECT_EQ(spec.vocabularySize, run->data().vocabulary().size());
        EXPECT_EQ(spec.maxPositions, run->data().maxSequenceLength());
        EXPECT_EQ(spec.scoreForm, ScoreForm::Factored);
        if (entry.value == TaskKind::Induction) {
            // Two attention-only decoder layers (Olsson et al. 2022).
            EXPECT_EQ(spec.encoderLayers, 0);
            EXPECT_EQ(spec.decoderLayers, 2);
            EXPECT_EQ(spec.d_ff, 0);
            EXPECT_EQ(spec.norm, NormKind::None);
        } else {
            EXPECT_EQ(spec.encoderLayers, 1);
            EXPECT_EQ(spec.decoderLayers, 1);
            EXPECT_EQ(spec.d_ff, 4 * 64);
            EXPECT_EQ(spec.norm, NormKind::LayerNorm);
        }
    }
    TrainingSettings full = TrainingSettings::defaultsFor(TaskKind::Copy);
    full.variant = ScoreForm::Full;
    full.layers = 2;
    const std::unique_ptr<TrainingRun> run = makeRun(full);
    ASSERT_TRUE(run);
    EXPECT_EQ(run->spec().scoreForm, ScoreForm::Full);
    EXPECT_EQ(run->spec().encoderLayers, 2);
    EXPECT_NE(run->parameters().find("decoder.1.cross_attention.W_4"), nullptr);
}

TEST(TrainingRun, ATinyReverseModelLearns)
{
    const std::unique_ptr<TrainingRun> run = makeRun(tinySettings(TaskKind::Reverse));
    ASSERT_TRUE(run);
    const double before = run->evaluate().loss;
    double first = 0.0, last = 0.0;
    for (int i = 0; i < 300; ++i) {
        const CurvePoint point = run->step();
        EXPECT_EQ(point.step, i + 1);
        if (i < 20) first += point.loss;
        if (i >= 280) last += point.loss;
    }
    const double after = run->evaluate().loss;
    EXPECT_GT(before, 2.5) << "an untrained model guesses (log 19 = 2.94)";
    EXPECT_LT(last, 0.25 * first) << "training loss, last 20 steps against first 20";
    EXPECT_LT(after, 0.25 * before) << "held-out loss";
    EXPECT_EQ(run->stepsDone(), 300);
}

TEST(TrainingRun, TheCurveHasEveryStepAndHeldOutNumbersWhereEvaluated)
{
    const std::unique_ptr<TrainingRun> run = makeRun(tinySettings(TaskKind::Copy));
    ASSERT_TRUE(run);
    const BatchLoss start = run->evaluate();
    ASSERT_EQ(run->curve().size(), 1u) << "evaluating before the first step adds step 0";
    EXPECT_EQ(run->curve()[0].step, 0);
    EXPECT_TRUE(std::isnan(run->curve()[0].loss));
    EXPECT_DOUBLE_EQ(run->curve()[0].heldOutLoss, start.loss);
    EXPECT_EQ(start.sequences, 32);

    double seconds = 0.0;
    for (int i = 0; i < 5; ++i) {
        const CurvePoint point = run->step();
        EXPECT_TRUE(std::isnan(point.heldOutLoss));
        EXPECT_TRUE(std::isfinite(point.loss));
        EXPECT_GE(point.accuracy, 0.0);
        EXPECT_LE(point.accuracy, 1.0);
        EXPECT_GT(point.seconds, seconds) << "training time grows";
        seconds = point.seconds;
    }
    const BatchLoss now = run->evaluate();
    ASSERT_EQ(run->curve().size(), 6u);
    const CurvePoint& last = run->curve().back();
    EXPECT_EQ(last.step, 5);
    EXPECT_DOUBLE_EQ(last.heldOutLoss, now.loss);
    EXPECT_DOUBLE_EQ(last.heldOutAccuracy,
                     static_cast<double>(now.correctTokens) / static_cast<double>(now.scoredTokens));
    EXPECT_DOUBLE_EQ(last.heldOutSequenceAccuracy,
                     static_cast<double>(now.correctSequences) / static_cast<double>(now.sequences));
    EXPECT_EQ(last.seconds, seconds) << "evaluation is not training time";
}

// Whether the engine computes the same gradient wherever the heap puts the gradient buffer
// (model_forward.hpp promises "same inputs, same bits"). Nothing a run does can make up for it
// if not: two runs hold their buffers at different addresses.
bool gradientIgnoresBufferAddress(const TrainingRun& run)
{
    std::vector<SequencePair> batch;
    for (std::uint64_t i = 0; i < 16; ++i) batch.push_back(run.data().trainingExample(i).ids);
    ModelParameters<float> first = ModelParameters<float>::zeros(run.spec());
    lossAndGradient(run.parameters(), batch, first);
    std::vector<std::vector<char>> spacers;  // shift the next allocations by 16 bytes at a time
    for (int i = 0; i < 8; ++i) {
        spacers.emplace_back(static_cast<std::size_t>(16 * i + 8));
        ModelParameters<float> gradient = ModelParameters<float>::zeros(run.spec());
        lossAndGradient(run.parameters(), batch, gradient);
        if (gradient.values != first.values) return false;
    }
    return true;
}

TEST(TrainingRun, TheSameSettingsGiveTheSameBits)
{
    TrainingSettings settings = tinySettings(TaskKind::Sort);
    const std::unique_ptr<TrainingRun> a = makeRun(settings), b = makeRun(settings);
    ASSERT_TRUE(a && b);
    ASSERT_TRUE(gradientIgnoresBufferAddress(*a))
        << "the engine's gradient depends on where the gradient buffer lies, so no two runs agree bit for bit";
    settings.seed = 1;
    const std::unique_ptr<TrainingRun> c = makeRun(settings);
    settings.seed = 0;
    settings.task.seed = 1;
    const std::unique_ptr<TrainingRun> d = makeRun(settings);
    ASSERT_TRUE(a && b && c && d);
    for (int i = 0; i < 30; ++i) {
        EXPECT_EQ(a->step().loss, b->step().loss);
        c->step();
        d->step();
    }
    EXPECT_EQ(a->parameters().values, b->parameters().values);
    EXPECT_NE(a->parameters().values, c->parameters().values) << "another weight seed";
    EXPECT_NE(a->parameters().values, d->parameters().values) << "another data seed";
}

TEST(TrainingRun, TheLearningRateWarmsUpThenFallsByACosine)
{
    TrainingSettings settings;
    settings.steps = 1100;
    settings.optimizer.learningRate = 2e-3;
    settings.optimizer.warmupSteps = 100;
    EXPECT_DOUBLE_EQ(scheduledLearningRate(settings, 50), 2e-3) << "AdamW itself scales the warm-up";
    EXPECT_DOUBLE_EQ(scheduledLearningRate(settings, 100), 2e-3);
    EXPECT_NEAR(scheduledLearningRate(settings, 600), 2e-3 * (0.1 + 0.9 * 0.5), 1e-15);
    EXPECT_NEAR(scheduledLearningRate(settings, 1100), 2e-4, 1e-15);
    EXPECT_NEAR(scheduledLearningRate(settings, 5000), 2e-4, 1e-15) << "steps after the last keep the floor";
    EXPECT_GT(scheduledLearningRate(settings, 300), scheduledLearningRate(settings, 301));
}

// Teacher forcing feeds the right previous words; greedy decoding feeds its own. While every
// argmax is right they feed the same words, so "every token right" and "greedy writes the answer"
// are one claim.
TEST(TrainingRun, WholeSequenceAccuracyIsGreedyDecodingWritingTheAnswer)
{
    TrainingSettings settings = tinySettings(TaskKind::Copy);
    settings.task.heldOutCount = 64;
    const std::unique_ptr<TrainingRun> run = makeRun(settings);
    ASSERT_TRUE(run);
    bool sawRight = false, sawWrong = false;
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < 100; ++i) run->step();
        const BatchLoss loss = run->evaluate();
        Index greedyRight = 0;
        for (const TaskExample& example : run->data().heldOut()) {
            const BatchLoss one = evaluateLoss(run->parameters(), std::vector<SequencePair>{example.ids});
            const std::vector<std::int32_t> answer =
                greedyDecode(run->parameters(), example.ids.source, Vocabulary::bos, Vocabulary::eos,
                             run->spec().maxPositions);
            const bool greedy = answer == example.ids.targetOutput;
            EXPECT_EQ(one.correctSequences == 1, greedy) << "round " << round;
            greedyRight += greedy ? 1 : 0;
            (greedy ? sawRight : sawWrong) = true;
        }
        EXPECT_EQ(loss.correctSequences, greedyRight) << "round " << round;
    }
    EXPECT_TRUE(sawRight && sawWrong) << "the rounds should see right and wrong answers, or the test proves little";
}

}  // namespace
}  // namespace qkv
