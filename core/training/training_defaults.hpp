#pragma once
// The layout each task's model has beyond what TrainingSettings chooses: MLP width, norms and
// positions (docs/training.md has the table and the measurements behind it).

#include "core/trainable/model_spec.hpp"
#include "core/training/tasks.hpp"

namespace qkv {

struct TaskShape {
    Index mlpMultiple = 4;  // d_ff = mlpMultiple * d_model; 0: attention-only layers
    NormKind norm = NormKind::LayerNorm;
    PositionKind positions = PositionKind::Sinusoidal;
};
TaskShape taskShape(TaskKind kind);

}  // namespace qkv
