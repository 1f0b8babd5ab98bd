#pragma once
// The Model tab's two figures as screen readers read them: a table of layers (rows) x heads
// (columns), each cell the head's tooltip in words (its layer, kind and four statistics: what a
// sighted reader takes from a small map is its pattern, which those numbers summarise).

#include <functional>
#include <memory>

#include "core/pipeline/model_overview.hpp"
#include "ui/accessibility/cell_table.hpp"

namespace qkv::ui {

// `overview`: the overview shown now (null: none); `caption`: what the figure is.
CellTable modelHeadsTable(std::function<std::shared_ptr<const qkv::ModelOverview>()> overview, QString caption);

}  // namespace qkv::ui
