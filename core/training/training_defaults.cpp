// The default settings of each task: what the targets in docs/training.md were measured with.
#include "core/training/training_defaults.hpp"

#include "core/training/training_run.hpp"

namespace qkv {

TaskShape taskShape(TaskKind kind)
{
    TaskShape shape;
    if (kind == TaskKind::Induction) {
        // Olsson et al. (2022) find induction heads in attention-only models: two layers of
        // attention and nothing else, so that the heads' composition is all there is.
        shape.mlpMultiple = 0;
        shape.norm = NormKind::None;
    }
    return shape;
}

TrainingSettings TrainingSettings::defaultsFor(TaskKind kind)
{
    TrainingSettings settings;
    settings.task.kind = kind;
    settings.d_model = 64;
    settings.headCount = 4;
    settings.layers = 1;
    settings.steps = 2000;
    settings.batch = 32;
    settings.optimizer.learningRate = 3e-3;
    settings.optimizer.warmupSteps = 100;
    if (kind == TaskKind::Induction) settings.layers = 2;
    return settings;
}

}  // namespace qkv
