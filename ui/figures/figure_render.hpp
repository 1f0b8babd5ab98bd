#pragma once
// Runs a registered figure on a painter, a file or an image: the one path from the registry to
// the screen, PNG, SVG, PDF, the clipboard and `qkv-studio figure`.

#include <QImage>
#include <QRectF>
#include <QString>

#include "ui/figures/figure.hpp"
#include "ui/figures/figure_export.hpp"

class QMimeData;

namespace qkv::ui {

// Fills `rect` with options.background, sets options.font and the text colour, then paints.
void paintFigure(QPainter& painter, const Figure& figure, const QRectF& rect, const FigureInput& input);

// Writes `figure` to `path` atomically. Empty on success, else a message naming the file and
// the problem (including why the figure is unavailable for `input`).
QString writeFigure(const Figure& figure, const FigureInput& input, const QString& path, FigureFormat format,
                    const ExportSize& size);

// The figure as bytes of `format` (for the clipboard); empty with `error` set on failure.
QByteArray figureBytes(const Figure& figure, const FigureInput& input, FigureFormat format, const ExportSize& size,
                       QString& error);

// The figure as an image of size.pixels() (null when unavailable).
QImage figureImage(const Figure& figure, const FigureInput& input, const ExportSize& size);

// Clipboard data: the PNG image and the SVG (image/svg+xml). Null with `error` on failure.
QMimeData* figureMimeData(const Figure& figure, const FigureInput& input, const ExportSize& size, QString& error);

}  // namespace qkv::ui
