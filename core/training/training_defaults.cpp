// The default settings of each task: what the targets in docs/training.md were measured with.
#include "core/training/training_defaults.hpp"

#include "core/training/training_run.hpp"

namespace qkv {

TaskShape taskShape(TaskKind kind)
{
    TaskShape shape;
    if (kind == TaskKind::Induction) {
        // Olsson et al. (2022) find induction heads in attention-only models: two layers of
        // attention and nothing else, so that the heads' composition is all there is. Sinusoidal
        // positions (the default) give "the key just before me" to every position alike.
        shape.mlpMultiple = 0;
        shape.norm = NormKind::None;
    }
    return shape;
}

TrainingSettings TrainingSettings::defaultsFor(TaskKind kind)
{
    // Measured in docs/training.md: each default reaches its task's targets within its steps,
    // with room to spare, on one core of the development machine.
    TrainingSettings settings;
    settings.task.kind = kind;
    settings.d_model = 64;
    settings.headCount = 4;
    settings.layers = 1;
    settings.batch = 32;
    settings.optimizer.learningRate = 3e-3;
    settings.optimizer.warmupSteps = 100;
    switch (kind) {
    case TaskKind::Reverse:
    case TaskKind::Sort:
        settings.steps = 4000;  // 99% of whole sequences by ~3,000
        break;
    case TaskKind::Copy:
    case TaskKind::Translate:
        settings.steps = 2000;  // every held-out token right by ~1,000
        break;
    case TaskKind::Induction:
        // A clean previous-token head forms late, after the task is mostly solved: a higher rate
        // held longer lets it sharpen (0.6 -> 0.97 between 2,000 and 4,000 steps).
        settings.layers = 2;
        settings.steps = 10000;
        settings.optimizer.learningRate = 5e-3;
        break;
    }
    return settings;
}

}  // namespace qkv
