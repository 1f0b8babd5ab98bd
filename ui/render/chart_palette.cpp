#include "ui/render/chart_palette.hpp"

#include <QAbstractAxis>
#include <QAbstractBarSeries>
#include <QBarSet>
#include <QChart>
#include <QLegend>
#include <QPalette>

namespace qkv::ui {

void applyPaletteToChart(QChart* chart, const QPalette& palette)
{
    if (!chart || palette.color(QPalette::Base).lightness() >= 128) return;
    const QColor text = palette.color(QPalette::Text);
    QColor grid = text;
    grid.setAlpha(50);
    QColor line = text;
    line.setAlpha(140);

    chart->setBackgroundBrush(palette.base());
    chart->setBackgroundPen(QPen(palette.color(QPalette::Mid)));
    chart->setTitleBrush(text);
    chart->legend()->setLabelColor(text);
    for (QAbstractAxis* axis : chart->axes()) {
        axis->setLabelsColor(text);
        axis->setTitleBrush(text);
        axis->setLinePenColor(line);
        axis->setGridLineColor(grid);
        axis->setMinorGridLineColor(grid);
    }
    for (QAbstractSeries* series : chart->series()) {
        if (auto* bars = qobject_cast<QAbstractBarSeries*>(series)) {
            for (QBarSet* set : bars->barSets()) set->setLabelColor(text);
        }
    }
}

}  // namespace qkv::ui
