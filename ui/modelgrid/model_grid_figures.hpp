#pragma once
// The Model tab's figures for the registry (figure_registry.cpp): "model", every layer's maps as
// a layers x heads grid, and "model-statistics", the four per-head statistics of every layer.
// Both draw FigureInput::overview; without one they are unavailable and say why.

#include <QLatin1String>

#include <vector>

#include "ui/figures/figure.hpp"

namespace qkv::ui {

// The Model tab's id (ResultView::id(), the session's view.tab) and its figures' view.
inline constexpr QLatin1String kModelViewId{"model"};

std::vector<Figure> modelGridFigures();

}  // namespace qkv::ui
