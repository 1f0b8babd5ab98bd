// What `qkv-studio train` writes beside its sessions: the log's rows, the report's keys (a
// contract with scripts), the targets and which variant reached its target first.
#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/training/training_report.hpp"

namespace qkv {
namespace {

using Json = nlohmann::json;

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

std::unique_ptr<TrainingRun> tinyRun(ScoreForm variant, long steps, Index d_model = 8, Index batch = 4)
{
    TrainingSettings settings = TrainingSettings::defaultsFor(TaskKind::Copy);
    settings.variant = variant;
    settings.d_model = d_model;
    settings.headCount = 2;
    settings.batch = batch;
    settings.steps = steps;
    settings.optimizer.learningRate = 0.01;
    settings.task.heldOutCount = 32;
    Expected<std::unique_ptr<TrainingRun>> run = TrainingRun::create(settings);
    EXPECT_TRUE(run.ok()) << run.error();
    // Held-out evaluations every 2 steps (every 10 in longer runs) and after the last.
    const long every = steps > 100 ? 10 : 2;
    for (long step = 1; step <= steps; ++step) {
        (*run)->step();
        if (step % every == 0 || step == steps) (*run)->evaluate();
    }
    return std::move(*run);
}

std::set<std::string> keysOf(const Json& object)
{
    std::set<std::string> keys;
    for (const auto& [key, value] : object.items()) keys.insert(key);
    return keys;
}

TEST(TrainingReport, TargetsPerTask)
{
    for (const TaskKind task : {TaskKind::Reverse, TaskKind::Copy, TaskKind::Sort}) {
        EXPECT_EQ(trainingTarget(task).metric, "heldout_sequence_accuracy");
        EXPECT_EQ(trainingTarget(task).threshold, 0.99);
    }
    for (const TaskKind task : {TaskKind::Translate, TaskKind::Induction}) {
        EXPECT_EQ(trainingTarget(task).metric, "heldout_accuracy");
        EXPECT_EQ(trainingTarget(task).threshold, 0.95);
    }
    EXPECT_EQ(trainingTarget(TaskKind::Reverse).description(), "held-out whole-sequence accuracy >= 99%");
    EXPECT_EQ(trainingTarget(TaskKind::Translate).description(), "held-out token accuracy >= 95%");
}

TEST(TrainingReport, FirstAtTargetIsTheFirstEvaluationAtOrAboveTheThreshold)
{
    std::vector<CurvePoint> curve = {{1, 0.1, 2.0, 0.5, nan, nan, nan},
                                     {2, 0.2, 1.0, 0.9, 0.8, 0.999, 0.98},   // token, not sequence
                                     {3, 0.3, 0.5, 1.0, nan, nan, nan},       // not evaluated
                                     {4, 0.4, 0.1, 1.0, 0.1, 0.999, 0.99},
                                     {5, 0.5, 0.1, 1.0, 0.1, 1.0, 1.0}};
    const std::optional<CurvePoint> reverse = firstAtTarget(curve, TaskKind::Reverse);
    ASSERT_TRUE(reverse.has_value());
    EXPECT_EQ(reverse->step, 4);
    const std::optional<CurvePoint> translate = firstAtTarget(curve, TaskKind::Translate);
    ASSERT_TRUE(translate.has_value());
    EXPECT_EQ(translate->step, 2);
    curve.resize(3);
    EXPECT_FALSE(firstAtTarget(curve, TaskKind::Reverse).has_value());
}

TEST(TrainingReport, LogHasOneRowPerStepOfEachVariant)
{
    const auto factored = tinyRun(ScoreForm::Factored, 3);
    const auto full = tinyRun(ScoreForm::Full, 2);
    const std::string csv = trainingLogCsv({factored.get(), full.get()});
    std::istringstream lines(csv);
    std::vector<std::string> rows;
    for (std::string line; std::getline(lines, line);) rows.push_back(line);
    ASSERT_EQ(rows.size(), 6u);
    EXPECT_EQ(rows[0], "step,variant,loss,accuracy,seconds");
    EXPECT_EQ(rows[1].substr(0, 11), "1,factored,");
    EXPECT_EQ(rows[3].substr(0, 11), "3,factored,");
    EXPECT_EQ(rows[5].substr(0, 7), "2,full,");
    // The loss as the shortest text of the double: it reads back to the same bits.
    const std::string loss = rows[1].substr(11, rows[1].find(',', 11) - 11);
    EXPECT_EQ(std::stod(loss), factored->curve().front().loss);
}

TEST(TrainingReport, KeysAreTheContract)
{
    const auto factored = tinyRun(ScoreForm::Factored, 4);
    const auto full = tinyRun(ScoreForm::Full, 4);
    const Json report = Json::parse(trainingReportJson({factored.get(), full.get()}));
    EXPECT_EQ(keysOf(report), (std::set<std::string>{"task", "data", "target", "variants", "comparison"}));
    EXPECT_EQ(report["task"], "copy");
    EXPECT_EQ(keysOf(report["variants"]), (std::set<std::string>{"factored", "full"}));
    for (const auto& [name, variant] : report["variants"].items()) {
        SCOPED_TRACE(name);
        EXPECT_EQ(keysOf(variant),
                  (std::set<std::string>{"parameters", "attention_parameters", "score_parameters", "steps", "seconds",
                                         "train_loss", "heldout_loss", "heldout_accuracy", "heldout_sequence_accuracy",
                                         "vocabulary", "settings", "layers"}));
        const TrainingRun& run = name == "factored" ? *factored : *full;
        EXPECT_EQ(variant["parameters"], run.parameters().count());
        EXPECT_EQ(variant["attention_parameters"], attentionParameterCount(run.spec()));
        EXPECT_EQ(variant["steps"], 4);
        EXPECT_EQ(variant["vocabulary"], run.data().vocabulary().tokens());
        // The last evaluation: after step 4.
        EXPECT_EQ(variant["heldout_loss"].get<double>(), run.curve().back().heldOutLoss);
        double trainLoss = 0.0;
        for (const CurvePoint& point : run.curve()) trainLoss += point.loss / 4.0;
        EXPECT_NEAR(variant["train_loss"].get<double>(), trainLoss, 1e-12);
        for (const Json& layer : variant["layers"])
            for (const Json& head : layer["heads"]) {
                EXPECT_EQ(keysOf(head), (std::set<std::string>{"head", "effective_rank", "alignment"}));
                EXPECT_EQ(head["alignment"].is_null(), layer["kind"] != "cross");
            }
    }
    const Json& comparison = report["comparison"];
    EXPECT_EQ(keysOf(comparison), (std::set<std::string>{"first_to_target", "variants", "full_w_i"}));
    // One W_i per head of each of the full model's three attention layers, d_model values each.
    ASSERT_EQ(comparison["full_w_i"].size(), 6u);
    for (const Json& w : comparison["full_w_i"]) {
        EXPECT_EQ(w["singular_values"].size(), 8u);
        EXPECT_EQ(w["d_k"], 4);
        EXPECT_GE(w["energy_99_count"].get<int>(), 1);
        EXPECT_LE(w["energy_99_count"].get<int>(), 8);
    }
}

TEST(TrainingReport, FirstToTargetIsTheVariantThatGotThereInFewerSteps)
{
    // Copy at d_model 16 gets there within a few hundred steps, both variants, at different
    // steps (same seed, same data: the runs are deterministic).
    const auto factored = tinyRun(ScoreForm::Factored, 500, 16, 16);
    const auto full = tinyRun(ScoreForm::Full, 500, 16, 16);
    const std::optional<CurvePoint> a = firstAtTarget(factored->curve(), TaskKind::Copy);
    const std::optional<CurvePoint> b = firstAtTarget(full->curve(), TaskKind::Copy);
    ASSERT_TRUE(a.has_value() && b.has_value());
    ASSERT_NE(a->step, b->step);
    RecordProperty("factored_step", static_cast<int>(a->step));
    RecordProperty("full_step", static_cast<int>(b->step));
    const Json report = Json::parse(trainingReportJson({factored.get(), full.get()}));
    EXPECT_EQ(report["comparison"]["first_to_target"], a->step < b->step ? "factored" : "full");
    const Json& entries = report["comparison"]["variants"];
    EXPECT_EQ(entries[0]["variant"], "factored");
    EXPECT_EQ(entries[0]["reached_target"], true);
    EXPECT_EQ(entries[0]["step"], a->step);
    EXPECT_EQ(entries[1]["step"], b->step);
    EXPECT_EQ(entries[1]["score_parameters"], scoreParameterCount(full->spec()));
    // A run that has not got there yet is not first, whatever its steps.
    const auto early = tinyRun(ScoreForm::Full, 2, 16, 16);
    const Json partial = Json::parse(trainingReportJson({factored.get(), early.get()}));
    EXPECT_EQ(partial["comparison"]["first_to_target"], "factored");
    EXPECT_EQ(partial["comparison"]["variants"][1]["reached_target"], false);
    EXPECT_TRUE(partial["comparison"]["variants"][1]["step"].is_null());
}

}  // namespace
}  // namespace qkv
