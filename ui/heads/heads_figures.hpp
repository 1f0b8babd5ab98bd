#pragma once
// The heads tab's figures in the registry (ui/figures/figure.hpp):
//   heads  every head's heatmap (and their average when the view shows it), one colour bar;
//   head   the selected head alone, large, with its token labels and colour bar;
//   row    the selected head's row of the selected query over every key, or a span of queries'
//          mean row with each key's largest weight, exact (a long layer's recomputed).

#include <QString>
#include <vector>

#include "ui/figures/figure.hpp"
#include "ui/heads/heads_figure.hpp"

namespace qkv::ui {

// The HeadsView tab's id: the session's view.tab, the tab and its figures' view (one spelling;
// sessions store it, so it never changes).
inline constexpr QLatin1String kHeadsViewId{"heads"};

std::vector<Figure> headsFigures();

// What a FigureInput asks the heads figures to show (view.show, view.colour range, ...), and
// the colormap: view.colormap, or the kind's default (viridis, or blue-orange for scores) when it
// names no colormap.
HeadsFigureSpec headsFigureSpec(const FigureOptions& options);
ColormapName headsColormap(const FigureOptions& options);

}  // namespace qkv::ui
