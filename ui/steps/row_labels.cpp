#include "ui/steps/row_labels.hpp"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::StepFigure)
};

QFont scaled(const QFont& base, double scale)
{
    QFont font = base;
    if (base.pointSizeF() > 0)
        font.setPointSizeF(base.pointSizeF() * scale);
    else if (base.pixelSize() > 0)
        font.setPixelSize(std::max(1, static_cast<int>(std::lround(base.pixelSize() * scale))));
    return font;
}

}  // namespace

double rowLabelsHeight(const QFontMetricsF& metrics, int rows)
{
    // A little above the smallest scale: font heights do not shrink exactly in proportion.
    return std::min(rows, kRowsLabelledInFull) * metrics.height() * (kSmallestRowLabelScale + 0.05);
}

RowLabels planRowLabels(const QFont& base, const QPaintDevice* device, double height, int rows, int chosen)
{
    RowLabels plan;
    plan.font = base;
    if (rows <= 0 || height <= 0) return plan;
    const double pitch = height / rows;
    // The largest font from the figure's down to the smallest whose line fits a row.
    double lineHeight = 0;
    for (double scale = 1.0; scale >= kSmallestRowLabelScale - 1e-9; scale -= 0.05) {
        plan.font = scaled(base, scale);
        lineHeight = QFontMetricsF(plan.font, device).height();
        if (lineHeight <= pitch) break;
    }
    plan.every = lineHeight <= pitch ? 1 : static_cast<int>(std::ceil(lineHeight / pitch));
    for (int r = 0; r < rows; ++r) {
        // The chosen row is always labelled; its neighbours give way so that no two labels touch.
        const bool nearChosen = chosen >= 0 && r != chosen && std::abs(r - chosen) < plan.every;
        if ((r % plan.every == 0 && !nearChosen) || r == chosen) plan.rows.push_back(r);
    }
    if (plan.every > 1) plan.rule = Text::tr("key labels: 1 in %1").arg(plan.every);
    return plan;
}

}  // namespace qkv::ui
