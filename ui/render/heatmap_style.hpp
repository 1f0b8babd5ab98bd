#pragma once
// How one heatmap is drawn: colours, value range, labels, highlights.

#include <QColor>
#include <QPoint>
#include <QString>
#include <QStringList>

#include "ui/render/colormap.hpp"

namespace qkv::ui {

struct HeatmapStyle {
    ColormapName colormap = ColormapName::Viridis;
    double minValue = 0, maxValue = 1;      // mapped to t = 0 and t = 1
    QStringList rowLabels, columnLabels;    // one per row / column, or empty for none
    QString title, rowAxisTitle, columnAxisTitle;
    int highlightedRow = -1;                // outlined across the whole row
    int spanFirstRow = -1, spanEndRow = -1; // rows [first, end) selected together, outlined as one band
    QPoint highlightedCell{-1, -1};         // (column, row), outlined
    bool drawLabels = true;
    // Additions beyond the shared contract (defaults keep the contract's behaviour).
    QColor textColor = Qt::black;           // labels and titles
    QColor highlightColor = QColor(0xff, 0x8c, 0x00);  // row / cell outline
    bool selected = false;                  // draws a frame around the whole heatmap
    QColor selectionColor = QColor(0x30, 0x8c, 0xc6);  // that frame
};

}  // namespace qkv::ui
