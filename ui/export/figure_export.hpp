#pragma once
// Writes a figure to PNG, SVG or PDF by running the same paint function the screen uses.
// Files are written atomically (QSaveFile): on any failure nothing is left at the path.

#include <QSizeF>
#include <QString>

#include <functional>

class QPainter;

namespace qkv::ui {

enum class FigureFormat { Png, Svg, Pdf };

// From the file name's suffix (.png, .svg, .pdf); false when unknown.
bool figureFormatFromPath(const QString& path, FigureFormat& format);

// `paint` draws the figure in logical pixels within (0, 0, size). PNG is rendered at twice the
// resolution (crisp on high-DPI screens and in print); SVG has size, viewBox and a resolution
// of 96 with CSS-generic font families; PDF is one page of exactly the figure's size.
// Returns an empty string on success, else a message naming the file and the problem.
QString exportFigure(const QString& path, FigureFormat format, const QSizeF& size,
                     const std::function<void(QPainter&)>& paint);

}  // namespace qkv::ui
