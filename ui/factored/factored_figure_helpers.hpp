#pragma once
// Helpers the factored view's figures share (factored_figures.hpp): their translation context,
// spacing, a word-wrapped bold title, and conversions for the heatmap painter.

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <string>
#include <vector>

#include "core/common/matrix.hpp"

namespace qkv::ui::factored_figure {

// The translation context of the factored figures' text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::FactoredFigures)
};

constexpr double kGap = 6.0;
constexpr double kHeatmapMargin = 2.0;  // paintHeatmap keeps 2 px right and below the cells

MatrixF toFloat(const MatrixD& m);
double symmetricRange(double maxAbsValue);
// A bold title, word-wrapped into `box`'s width; returns its height.
double paintTitle(QPainter& painter, const QRectF& box, const QString& text);

}  // namespace qkv::ui::factored_figure
