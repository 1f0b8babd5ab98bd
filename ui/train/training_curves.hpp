#pragma once
// The curves the Train tab draws from a snapshot, per variant: the training loss of each step
// and the held-out loss at each evaluation; the held-out token accuracy and, for sequence
// tasks, the fraction of whole sequences right.

#include <vector>

#include "ui/train/curve_chart.hpp"
#include "ui/train/training_snapshot.hpp"

namespace qkv::ui {

std::vector<Curve> lossCurves(const TrainingSnapshot& snapshot);
std::vector<Curve> accuracyCurves(const TrainingSnapshot& snapshot);
// The legend both charts share, as rich text: each variant's colour, then what solid and
// dashed lines are.
QString curvesLegend(const TrainingSnapshot& snapshot);

}  // namespace qkv::ui
