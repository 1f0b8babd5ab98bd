#pragma once
// The registry of every figure: one list, above every tab that defines figures (each tab's
// <area>_figures.hpp declares `std::vector<Figure> <area>Figures()`), so the figure toolkit
// (ui/figures) stays below the tabs. The export menu, `qkv-studio figure` and the tests look
// figures up here.

#include <QString>
#include <QStringList>

#include <vector>

#include "ui/figures/figure.hpp"

namespace qkv::ui {

// Every figure of the app, in menu order. Defined in figure_registry.cpp, the one list: each
// area (a tab) contributes `std::vector<Figure> <area>Figures()`, declared in its
// <area>_figures.hpp, and the registry concatenates them.
const std::vector<Figure>& allFigures();
const Figure* findFigure(const QString& name);
// The figures of one tab, for its export menu.
std::vector<const Figure*> figuresOfView(const QString& view);
// Their names, for a view's id (ResultView::id()).
QStringList figureNamesOfView(const QString& view);

}  // namespace qkv::ui
