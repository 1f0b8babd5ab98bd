#pragma once
// The training limits, written once: what d_model, h, layers, steps, batch and the learning rate
// may be. TrainingRun::create checks them; `qkv-studio train` names the option of a field out of
// range, the Train tab sets its fields' ranges and messages from them, and docs/training.md's
// table is checked against them by a test.

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "core/trainable/model_spec.hpp"

namespace qkv {

struct TrainingSettings;

enum class TrainingField { DModel, Heads, Layers, Steps, Batch, LearningRate };

// One field's limits: its value lies in [minimum, maximum] and obeys `rule` (h's relation to
// d_model). Counts are whole numbers; the numbers are doubles so one table holds every field.
struct TrainingLimit {
    TrainingField field;
    std::string_view name;    // as the messages and docs/training.md name it
    std::string_view option;  // `qkv-studio train`'s option for it
    double minimum;
    double maximum;
    std::string_view rule;  // what else must hold, in words ("" when nothing)
};

// The smallest learning rate: the Train tab's field keeps nine decimals, three significant digits
// at 1e-6 (QDoubleSpinBox rounds to its decimals), and the command line offers the same range.
inline constexpr double minLearningRate = 1e-6;

inline constexpr std::array<TrainingLimit, 6> kTrainingLimits{{
    {TrainingField::DModel, "d_model", "--d-model", 4, static_cast<double>(maxTrainedDModel), ""},
    // d_k = d_model / h columns per head (docs/architecture.md, "Numerical conventions").
    {TrainingField::Heads, "h", "--heads", 1, static_cast<double>(maxTrainedDModel), "at most d_model, and divides it"},
    {TrainingField::Layers, "layers", "--layers", 1, static_cast<double>(maxTrainedLayers), "per stack"},
    {TrainingField::Steps, "steps", "--steps", 1, 10'000'000, ""},
    {TrainingField::Batch, "batch", "--batch", 1, 4096, ""},
    {TrainingField::LearningRate, "learning rate", "--lr", minLearningRate, 1, ""},
}};

const TrainingLimit& trainingLimit(TrainingField field);

// A limit or a value as the messages and the docs write it: counts with thousands separators
// ("10,000,000"), the learning rate in the shortest of fixed or exponent form ("0.003", "1e-6").
std::string limitText(TrainingField field, double value);

// The value of `field` in `settings`.
double fieldValue(const TrainingSettings& settings, TrainingField field);

// Empty when `field` of `settings` is within its limits; else what is wrong, naming the field and
// the value: "h must divide d_model 96; 5 does not", "steps must be between 1 and 10,000,000; 0
// is not".
std::string fieldProblem(const TrainingSettings& settings, TrainingField field);

struct FieldProblem {
    TrainingField field;
    std::string message;
};
// The first field (in kTrainingLimits' order) out of its limits, or none.
std::optional<FieldProblem> firstFieldProblem(const TrainingSettings& settings);

}  // namespace qkv
