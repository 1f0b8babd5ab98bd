#pragma once
// Writes a drawing to PNG, SVG or PDF by running the same paint function the screen uses.
// Files are written atomically (QSaveFile): on any failure nothing is left at the path, and a
// target that exists but is not a regular file (a FIFO, a device, a folder) is refused.

#include <QByteArray>
#include <QSizeF>
#include <QString>

#include <functional>

class QPainter;

namespace qkv::ui {

enum class FigureFormat { Png, Svg, Pdf };

// From the file name's suffix (.png, .svg, .pdf); false when unknown.
bool figureFormatFromPath(const QString& path, FigureFormat& format);
// "png", "svg", "pdf" and back.
QString figureFormatName(FigureFormat format);
bool figureFormatFromName(const QString& name, FigureFormat& format);

// The drawing's size in logical pixels (1/96 inch: a 96 dpi screen's pixel). A PNG has
// size x pixelRatio pixels and records dpi = 96 x pixelRatio, so that --dpi 300 gives an
// image of the same physical size with more pixels. SVG and PDF are vector: the ratio only
// affects images embedded in them.
struct ExportSize {
    QSizeF size;
    double pixelRatio = 1.0;

    QSize pixels() const;  // PNG pixels
};

using PaintFunction = std::function<void(QPainter&)>;

// `paint` draws in logical pixels within (0, 0, size). SVG has size, viewBox and a resolution
// of 96, text kept as text with CSS-generic font families; PDF is one page of exactly the
// drawing's size. An empty return and `error` set on failure.
// `title` goes into the file's metadata (SVG <title>, PDF Title).
QByteArray renderFigureBytes(FigureFormat format, const ExportSize& size, const PaintFunction& paint,
                             QString& error, const QString& title = {});

// Renders and writes `path` atomically. Returns an empty string on success, else a message
// naming the file and the problem.
QString exportFigure(const QString& path, FigureFormat format, const ExportSize& size, const PaintFunction& paint,
                     const QString& title = {});

}  // namespace qkv::ui
