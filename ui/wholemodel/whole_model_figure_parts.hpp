#pragma once
// What the Model and Predict figures share: why they cannot be drawn without the whole model,
// and their heading (a bold title, then a muted subtitle that wraps).

#include <QRectF>
#include <QString>

#include "ui/figures/figure.hpp"

class QPainter;

namespace qkv::ui {

// Why a figure of the whole model cannot be drawn for `input` ("" when it can): no result, or
// the layer shown is not part of a model that runs whole here.
QString whyNoModelOverview(const FigureInput& input);

// The figure's title in `titleRect` (bold, elided if it must be) and its subtitle, word-wrapped,
// in `subtitleRect`; leaves the options' font and the subtitle's muted pen set (for notes).
void paintFigureHeading(QPainter& painter, const QRectF& titleRect, const QRectF& subtitleRect, const QString& title,
                        const QString& subtitle, const FigureOptions& options);

}  // namespace qkv::ui
