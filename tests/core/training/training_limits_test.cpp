// The training limits (core/training/training_limits.hpp): each field's problem names the field
// and the value, h is checked against d_model, the values at the limits are accepted, and
// docs/training.md's table says what the code does.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/training/training_limits.hpp"
#include "core/training/training_run.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

TrainingSettings defaults() { return TrainingSettings::defaultsFor(TaskKind::Reverse); }

// The problem of `field` once `change` is applied to the defaults.
std::string problemOf(TrainingField field, const std::function<void(TrainingSettings&)>& change)
{
    TrainingSettings settings = defaults();
    change(settings);
    return fieldProblem(settings, field);
}

TEST(TrainingLimits, EachFieldSaysWhatIsWrongWithItsValue)
{
    using F = TrainingField;
    EXPECT_EQ(problemOf(F::DModel, [](auto& s) { s.d_model = 2; }), "d_model must be between 4 and 1,024; 2 is not");
    EXPECT_EQ(problemOf(F::DModel, [](auto& s) { s.d_model = 4096; }),
              "d_model must be between 4 and 1,024; 4,096 is not");
    EXPECT_EQ(problemOf(F::Heads,
                        [](auto& s) {
                            s.d_model = 96;
                            s.headCount = 5;
                        }),
              "h must divide d_model 96; 5 does not");
    EXPECT_EQ(problemOf(F::Heads, [](auto& s) { s.headCount = 0; }), "h must be between 1 and d_model 64; 0 is not");
    EXPECT_EQ(problemOf(F::Heads, [](auto& s) { s.headCount = 128; }),
              "h must be between 1 and d_model 64; 128 is not");
    EXPECT_EQ(problemOf(F::Layers, [](auto& s) { s.layers = 13; }), "layers must be between 1 and 12; 13 is not");
    EXPECT_EQ(problemOf(F::Steps, [](auto& s) { s.steps = 0; }), "steps must be between 1 and 10,000,000; 0 is not");
    EXPECT_EQ(problemOf(F::Batch, [](auto& s) { s.batch = 5000; }), "batch must be between 1 and 4,096; 5,000 is not");
    EXPECT_EQ(problemOf(F::LearningRate, [](auto& s) { s.optimizer.learningRate = 2.0; }),
              "learning rate must be between 1e-6 and 1; 2 is not");
    EXPECT_EQ(problemOf(F::LearningRate, [](auto& s) { s.optimizer.learningRate = 0.0; }),
              "learning rate must be between 1e-6 and 1; 0 is not");
    EXPECT_EQ(problemOf(F::LearningRate, [](auto& s) { s.optimizer.learningRate = std::nan(""); }),
              "learning rate must be between 1e-6 and 1; nan is not");
    // A problem is about its own field only.
    EXPECT_EQ(problemOf(F::Steps, [](auto& s) { s.headCount = 5; }), "");
}

TEST(TrainingLimits, HMayBeAsLargeAsDModel)
{
    TrainingSettings settings = defaults();
    settings.d_model = 256;
    settings.headCount = 256;
    EXPECT_EQ(fieldProblem(settings, TrainingField::Heads), "");
    settings.d_model = 1024;
    settings.headCount = 1024;
    EXPECT_FALSE(firstFieldProblem(settings).has_value());
    EXPECT_EQ(trainingLimit(TrainingField::Heads).maximum, trainingLimit(TrainingField::DModel).maximum);
}

TEST(TrainingLimits, TheLimitsThemselvesAreAccepted)
{
    for (const TrainingLimit& limit : kTrainingLimits) {
        SCOPED_TRACE(std::string(limit.name));
        for (const double value : {limit.minimum, limit.maximum}) {
            TrainingSettings settings = defaults();
            switch (limit.field) {
            case TrainingField::DModel: settings.d_model = settings.headCount = static_cast<Index>(value); break;
            case TrainingField::Heads: settings.d_model = settings.headCount = static_cast<Index>(value); break;
            case TrainingField::Layers: settings.layers = static_cast<Index>(value); break;
            case TrainingField::Steps: settings.steps = static_cast<long>(value); break;
            case TrainingField::Batch: settings.batch = static_cast<Index>(value); break;
            case TrainingField::LearningRate: settings.optimizer.learningRate = value; break;
            }
            EXPECT_EQ(fieldProblem(settings, limit.field), "") << value;
            EXPECT_EQ(fieldValue(settings, limit.field), value);
        }
    }
}

TEST(TrainingLimits, TheFirstProblemIsInTheTablesOrderAndTheDefaultsHaveNone)
{
    for (const TaskKind kind :
         {TaskKind::Reverse, TaskKind::Copy, TaskKind::Sort, TaskKind::Translate, TaskKind::Induction})
        EXPECT_FALSE(firstFieldProblem(TrainingSettings::defaultsFor(kind)).has_value());
    TrainingSettings settings = defaults();
    settings.batch = 0;
    settings.headCount = 3;
    const std::optional<FieldProblem> problem = firstFieldProblem(settings);
    ASSERT_TRUE(problem.has_value());
    EXPECT_EQ(problem->field, TrainingField::Heads);
    EXPECT_EQ(problem->message, "h must divide d_model 64; 3 does not");
}

TEST(TrainingLimits, NumbersReadAsTheDocsWriteThem)
{
    EXPECT_EQ(limitText(TrainingField::Steps, 10'000'000), "10,000,000");
    EXPECT_EQ(limitText(TrainingField::DModel, 4), "4");
    EXPECT_EQ(limitText(TrainingField::LearningRate, 1e-6), "1e-6");
    EXPECT_EQ(limitText(TrainingField::LearningRate, 0.003), "0.003");
    EXPECT_EQ(limitText(TrainingField::LearningRate, 1.0), "1");
    EXPECT_EQ(limitText(TrainingField::LearningRate, 2.5e10), "2.5e10");
}

// The cells of the table under "## Limits" in docs/training.md, one row per field, without the
// header and its rule.
std::vector<std::vector<std::string>> docsLimitsTable()
{
    std::ifstream in(std::string(qkv::sourceDir()) + "/docs/training.md");
    std::vector<std::vector<std::string>> rows;
    bool inSection = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("## ", 0) == 0) inSection = line == "## Limits and choices";
        if (!inSection || line.rfind("|", 0) != 0) continue;
        std::vector<std::string> cells;
        std::istringstream cellsText(line.substr(1));
        for (std::string cell; std::getline(cellsText, cell, '|');) {
            const std::size_t begin = cell.find_first_not_of(' '), end = cell.find_last_not_of(' ');
            cells.push_back(begin == std::string::npos ? std::string() : cell.substr(begin, end - begin + 1));
        }
        rows.push_back(std::move(cells));
    }
    rows.erase(rows.begin(), rows.begin() + std::min<std::ptrdiff_t>(2, std::ssize(rows)));  // header, |---|
    return rows;
}

TEST(TrainingLimits, TheDocsTableIsTheCodes)
{
    const std::vector<std::vector<std::string>> rows = docsLimitsTable();
    ASSERT_EQ(rows.size(), kTrainingLimits.size()) << "docs/training.md, ## Limits and choices: one row per field";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const TrainingLimit& limit = kTrainingLimits[i];
        SCOPED_TRACE(std::string(limit.name));
        ASSERT_EQ(rows[i].size(), 5u);
        // | setting | option | from | to | also |
        EXPECT_EQ(rows[i][0], std::string(limit.name));
        EXPECT_EQ(rows[i][1], "`" + std::string(limit.option) + "`");
        EXPECT_EQ(rows[i][2], limitText(limit.field, limit.minimum));
        EXPECT_EQ(rows[i][3], limitText(limit.field, limit.maximum));
        EXPECT_EQ(rows[i][4], std::string(limit.rule));
    }
}

}  // namespace
}  // namespace qkv
