#pragma once
// The heads tab's figures in the registry (ui/figures/figure.hpp):
//   heads  every head's heatmap (and their average when the view shows it), one colour bar;
//   head   the selected head alone, large, with its token labels and colour bar.

#include <vector>

#include "ui/figures/figure.hpp"
#include "ui/heads/heads_figure.hpp"

namespace qkv::ui {

std::vector<Figure> headsFigures();

// What a FigureInput asks the heads figures to show (view.show, view.colour range, ...), and
// the colormap: view.colormap, or the kind's default (viridis, or red-blue for scores) when it
// names no colormap.
HeadsFigureSpec headsFigureSpec(const FigureOptions& options);
ColormapName headsColormap(const FigureOptions& options);

}  // namespace qkv::ui
