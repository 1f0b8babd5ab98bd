#pragma once
// What "factored vs full" found, in sentences under the Train tab's progress: which variant
// reached the task's target first (steps and seconds), what each one's scores cost in
// parameters, and how many singular values the learned full W_i use against d_k. The numbers are
// core's (core/training/variant_comparison.hpp, the same as report.json's "comparison").

#include <QString>

#include "ui/train/training_snapshot.hpp"

namespace qkv::ui {

// Empty while the run is still going or has no variant; `layer` indexes attentionLayers(spec),
// the layer whose full W_i are counted.
QString verdictText(const TrainingSnapshot& snapshot, qkv::Index layer);

}  // namespace qkv::ui
