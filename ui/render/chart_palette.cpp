#include "ui/render/chart_palette.hpp"

#include <QAbstractAxis>
#include <QAbstractBarSeries>
#include <QBarSet>
#include <QChart>
#include <QLegend>
#include <QPalette>

namespace qkv::ui {

void applyChartColors(QChart* chart, const QColor& text, const QColor& background)
{
    if (!chart) return;
    QColor grid = text;
    grid.setAlpha(50);
    QColor line = text;
    line.setAlpha(140);

    chart->setBackgroundBrush(background);
    chart->setBackgroundPen(Qt::NoPen);
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

void applyPaletteToChart(QChart* chart, const QPalette& palette)
{
    if (!chart || palette.color(QPalette::Base).lightness() >= 128) return;
    applyChartColors(chart, palette.color(QPalette::Text), palette.color(QPalette::Base));
    chart->setBackgroundPen(QPen(palette.color(QPalette::Mid)));
}

}  // namespace qkv::ui
