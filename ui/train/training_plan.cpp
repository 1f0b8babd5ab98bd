#include "ui/train/training_plan.hpp"

namespace qkv::ui {

std::vector<qkv::ScoreForm> TrainingPlan::variants() const
{
    if (bothVariants) return {qkv::ScoreForm::Factored, qkv::ScoreForm::Full};
    return {settings.variant};
}

qkv::TrainingSettings TrainingPlan::settingsFor(qkv::ScoreForm variant) const
{
    qkv::TrainingSettings out = settings;
    out.variant = variant;
    return out;
}

std::string TrainingPlan::problem() const
{
    const std::optional<qkv::FieldProblem> problem = fieldProblem();
    return problem ? problem->message : std::string();
}

std::optional<qkv::FieldProblem> TrainingPlan::fieldProblem() const { return qkv::firstFieldProblem(settings); }

}  // namespace qkv::ui
