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
    // The sizes the form sets, checked by the model's own rule so that the form and
    // TrainingRun::create say the same words. The vocabulary is the task's, not known before its
    // data are built: any valid size stands in for it here.
    qkv::ModelSpec spec;
    spec.vocabularySize = 16;
    spec.d_model = settings.d_model;
    spec.headCount = settings.headCount;
    spec.encoderLayers = settings.layers;
    spec.decoderLayers = settings.layers;
    if (std::string problem = spec.problem(); !problem.empty()) return problem;
    if (settings.steps < 1) return "the number of steps must be at least 1";
    if (settings.batch < 1) return "the batch must hold at least one example";
    if (!(settings.optimizer.learningRate > 0.0)) return "the learning rate must be positive";
    return {};
}

}  // namespace qkv::ui
