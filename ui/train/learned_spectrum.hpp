#pragma once
// The spectrum of every learned W_i of one attention layer: for a full model, whose heads each
// learn one d_model x d_model matrix, how many singular values it ends up using. One line per
// head on a log scale; the legend names how many carry 99% of the energy (sum of σ²), the
// effective rank qkv::scoreHeads measures ("Head 1: 47"). Drawn by ChartView like every other chart.

#include "core/common/matrix.hpp"
#include "ui/render/chart_model.hpp"
#include "ui/train/training_snapshot.hpp"

namespace qkv::ui {

// Variant `variant`'s heads of attention layer `layer`; empty series when it has no scores.
ChartModel learnedSpectrumModel(const TrainedVariant& variant, qkv::Index layer);

}  // namespace qkv::ui
