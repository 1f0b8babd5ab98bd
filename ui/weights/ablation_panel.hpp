#pragma once
// The weights editor's ablation panel: for the selected query token, one
// bar per head, ||Δoutput|| / ||output|| when that head alone is switched off (the core's
// AblationEffects::relativeChange), the selected head highlighted, the head that matters most
// (AblationEffects::mostImportantHead) named, and the current switch-off set's effect.
// Widget-free: the figure and the screen paint it.

#include <QRectF>

#include "ui/figures/figure.hpp"
#include "ui/weights/head_weights_model.hpp"

class QPainter;

namespace qkv::ui {

void paintAblationPanel(QPainter& painter, const QRectF& rect, const HeadWeightsModel& model,
                        const FigureOptions& options);

}  // namespace qkv::ui
