#pragma once
// The Circuits tab's figures for the registry (figure_registry.cpp), each drawn from the whole
// model (FigureInput::overview) and the numbers circuit_store.hpp holds or computes:
//   "circuit-copying-scores"  every head's copying score, layers x heads (copying_grid_figure.hpp)
//   "circuit-eigenvalues"     the selected head's OV eigenvalues in the complex plane: the layer
//                             the document shows (the model's last self-attention layer when the
//                             result is not one of its layers), FigureOptions::head
//                             (eigenvalue_figure.hpp)
//   "heads-map"               every head placed by two of its scores, the axes chosen last in
//                             the tab (heads_map_figure.hpp)

#include <QLatin1String>

#include <vector>

#include "core/circuits/head_circuits.hpp"
#include "core/pipeline/model_overview.hpp"
#include "ui/circuits/copying_grid_figure.hpp"
#include "ui/circuits/eigenvalue_figure.hpp"
#include "ui/figures/figure.hpp"

namespace qkv::ui {

// The Circuits tab's id (ResultView::id(), the session's view.tab) and its figures' view.
inline constexpr QLatin1String kCircuitsViewId{"circuits"};

std::vector<Figure> circuitFigures();

// Why `input`'s model has no circuits ("" when it has): no overview, or core's noCircuitsReason.
QString whyNoCircuits(const FigureInput& input);
// The grid's data: `scores` (L x h) with the overview's layer labels.
CopyingGridData copyingGridData(const qkv::ModelOverview& overview, const qkv::MatrixD& scores);
// "1.3" for a head of the overview's model.
QString circuitHeadName(const qkv::ModelOverview& overview, const qkv::CircuitHead& head);

}  // namespace qkv::ui
