// The training limits (training_limits.hpp): the values, their text and each field's problem.
#include "core/training/training_limits.hpp"

#include <cmath>
#include <cstdio>

#include "core/training/number_text.hpp"
#include "core/training/training_run.hpp"

namespace qkv {

const TrainingLimit& trainingLimit(TrainingField field)
{
    for (const TrainingLimit& limit : kTrainingLimits)
        if (limit.field == field) return limit;
    return kTrainingLimits.front();  // unreachable: every field has a row
}

std::string limitText(TrainingField field, double value)
{
    if (field != TrainingField::LearningRate && std::isfinite(value) && value == std::round(value) &&
        std::abs(value) < 1e18)
        return withThousandsSeparators(static_cast<long long>(value));
    // %g, with the exponent's sign and leading zeros left out: "1e-06" -> "1e-6".
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    std::string out = text;
    if (const std::size_t e = out.find('e'); e != std::string::npos) {
        std::size_t digits = e + 1;
        if (digits < out.size() && out[digits] == '+') out.erase(digits, 1);
        if (digits < out.size() && out[digits] == '-') ++digits;
        while (digits + 1 < out.size() && out[digits] == '0') out.erase(digits, 1);
    }
    return out;
}

double fieldValue(const TrainingSettings& settings, TrainingField field)
{
    switch (field) {
    case TrainingField::DModel: return static_cast<double>(settings.d_model);
    case TrainingField::Heads: return static_cast<double>(settings.headCount);
    case TrainingField::Layers: return static_cast<double>(settings.layers);
    case TrainingField::Steps: return static_cast<double>(settings.steps);
    case TrainingField::Batch: return static_cast<double>(settings.batch);
    case TrainingField::LearningRate: return settings.optimizer.learningRate;
    }
    return 0.0;
}

std::string fieldProblem(const TrainingSettings& settings, TrainingField field)
{
    const TrainingLimit& limit = trainingLimit(field);
    const double value = fieldValue(settings, field);
    const std::string name(limit.name);
    const auto text = [field](double number) { return limitText(field, number); };
    if (field == TrainingField::Heads) {
        // h against d_model first: the fixed maximum is only the largest d_model.
        const std::string d_model = limitText(TrainingField::DModel, static_cast<double>(settings.d_model));
        if (settings.headCount < 1 || settings.headCount > settings.d_model)
            return name + " must be between 1 and d_model " + d_model + "; " + text(value) + " is not";
        if (settings.d_model % settings.headCount != 0)
            return name + " must divide d_model " + d_model + "; " + text(value) + " does not";
    }
    if (!(value >= limit.minimum && value <= limit.maximum))  // NaN too
        return name + " must be between " + text(limit.minimum) + " and " + text(limit.maximum) + "; " + text(value) +
               " is not";
    return {};
}

std::optional<FieldProblem> firstFieldProblem(const TrainingSettings& settings)
{
    for (const TrainingLimit& limit : kTrainingLimits)
        if (std::string problem = fieldProblem(settings, limit.field); !problem.empty())
            return FieldProblem{limit.field, std::move(problem)};
    return std::nullopt;
}

}  // namespace qkv
