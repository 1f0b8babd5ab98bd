#include "ui/figures/figure_export.hpp"

#include <QBuffer>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSvgGenerator>

#include <cmath>
#include <filesystem>
#include <system_error>

#include "core/common/limits.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::FigureExport)
};

// QSvgGenerator writes Qt's family names ("Sans Serif", "DejaVu Sans"); browsers only know
// installed families and CSS generic ones, so every family gets a generic fallback. Images
// (the heatmaps' cells) are marked pixelated, so viewers do not blur cell edges together.
QByteArray polishedSvg(const QByteArray& svg)
{
    QString text = QString::fromUtf8(svg);
    static const QRegularExpression family(QStringLiteral("font-family=\"([^\"]*)\""));
    QString out;
    out.reserve(text.size() + 1024);
    qsizetype last = 0;
    for (auto it = family.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        out += QStringView(text).mid(last, m.capturedStart() - last);
        const QString name = m.captured(1);
        const bool generic = name.compare(QStringLiteral("Sans Serif"), Qt::CaseInsensitive) == 0 ||
                             name.compare(QStringLiteral("sans-serif"), Qt::CaseInsensitive) == 0;
        out += generic ? QStringLiteral("font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\"")
                       : QStringLiteral("font-family=\"%1, DejaVu Sans, Helvetica, Arial, sans-serif\"").arg(name);
        last = m.capturedEnd();
    }
    out += QStringView(text).mid(last);
    out.replace(QStringLiteral("<image "), QStringLiteral("<image style=\"image-rendering:pixelated\" "));
    return out.toUtf8();
}

QByteArray renderPng(const ExportSize& size, const PaintFunction& paint, QString& error)
{
    const QSize pixels = size.pixels();
    if (pixels.width() > limits::maxFigureSide || pixels.height() > limits::maxFigureSide) {
        error = Text::tr("%1 x %2 pixels is too large for a PNG image (at most %3 per side).")
                    .arg(pixels.width())
                    .arg(pixels.height())
                    .arg(limits::maxFigureSide);
        return {};
    }
    QImage image(pixels, QImage::Format_ARGB32_Premultiplied);
    if (image.isNull()) {
        error =
            Text::tr("Not enough memory for a PNG image of %1 x %2 pixels.").arg(pixels.width()).arg(pixels.height());
        return {};
    }
    // The figure is laid out in logical units (1/96 inch) and drawn pixelRatio times sharper:
    // the device pixel ratio scales the painter, while the image's resolution stays 96 dpi during
    // painting, so a font's points become the same logical size at any dpi (at 192 dpi they
    // would otherwise double inside a layout that does not).
    image.setDevicePixelRatio(size.pixelRatio);
    image.setDotsPerMeterX(static_cast<int>(std::lround(96.0 / 0.0254)));
    image.setDotsPerMeterY(static_cast<int>(std::lround(96.0 / 0.0254)));
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        painter.setRenderHint(QPainter::TextAntialiasing);
        paint(painter);
    }
    // The file says how many pixels make an inch: the physical size stays the 96-dpi one.
    const int dotsPerMeter = static_cast<int>(std::lround(96.0 * size.pixelRatio / 0.0254));
    image.setDotsPerMeterX(dotsPerMeter);
    image.setDotsPerMeterY(dotsPerMeter);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG")) error = Text::tr("Could not encode the PNG image.");
    return bytes;
}

QString metadataTitle(const QString& title) { return title.isEmpty() ? Text::tr("QKV Studio figure") : title; }

QByteArray renderSvg(const ExportSize& size, const PaintFunction& paint, const QString& title)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(size.size.toSize());
    generator.setViewBox(QRectF(QPointF(0, 0), size.size));
    generator.setResolution(96);
    generator.setTitle(metadataTitle(title));
    generator.setDescription(Text::tr("Multi-head attention, drawn by QKV Studio"));
    {
        QPainter painter(&generator);
        paint(painter);
    }
    buffer.close();
    return polishedSvg(bytes);
}

QByteArray renderPdf(const ExportSize& size, const PaintFunction& paint, const QString& title)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter writer(&buffer);
        writer.setResolution(96);  // one painter unit = one logical pixel
        writer.setPageSize(QPageSize(QSizeF(size.size.width() * 72.0 / 96.0, size.size.height() * 72.0 / 96.0),
                                     QPageSize::Point, QString(), QPageSize::ExactMatch));
        writer.setPageMargins(QMarginsF(0, 0, 0, 0));
        writer.setTitle(metadataTitle(title));
        writer.setCreator(QStringLiteral("QKV Studio"));
        QPainter painter(&writer);
        paint(painter);
    }
    buffer.close();
    return bytes;
}

// Empty when `path` is absent or a regular file (or a link to one); else why it cannot be
// replaced. A rename over a FIFO or a device would replace the node (docs/architecture.md, "Rules learned on this machine").
QString refuseNonRegularTarget(const QString& path)
{
    std::error_code error;
    const std::filesystem::file_status status = std::filesystem::status(path.toStdString(), error);
    if (error || status.type() == std::filesystem::file_type::not_found ||
        status.type() == std::filesystem::file_type::regular)
        return {};
    if (status.type() == std::filesystem::file_type::directory) return Text::tr("it is a folder");
    return Text::tr("it exists and is not a regular file (a pipe, a device or a socket)");
}

}  // namespace

QSize ExportSize::pixels() const
{
    return {static_cast<int>(std::lround(size.width() * pixelRatio)),
            static_cast<int>(std::lround(size.height() * pixelRatio))};
}

bool figureFormatFromPath(const QString& path, FigureFormat& format)
{
    return figureFormatFromName(QFileInfo(path).suffix().toLower(), format);
}

QString figureFormatName(FigureFormat format)
{
    switch (format) {
    case FigureFormat::Png: return QStringLiteral("png");
    case FigureFormat::Svg: return QStringLiteral("svg");
    case FigureFormat::Pdf: return QStringLiteral("pdf");
    }
    return {};
}

bool figureFormatFromName(const QString& name, FigureFormat& format)
{
    for (FigureFormat f : {FigureFormat::Png, FigureFormat::Svg, FigureFormat::Pdf})
        if (name == figureFormatName(f)) {
            format = f;
            return true;
        }
    return false;
}

QByteArray renderFigureBytes(FigureFormat format, const ExportSize& size, const PaintFunction& paint, QString& error,
                             const QString& title)
{
    if (!(size.size.width() >= 1 && size.size.height() >= 1) || !(size.pixelRatio > 0)) {
        error = Text::tr("the figure has no size (%1 x %2).").arg(size.size.width()).arg(size.size.height());
        return {};
    }
    QByteArray bytes;
    switch (format) {
    case FigureFormat::Png: bytes = renderPng(size, paint, error); break;
    case FigureFormat::Svg: bytes = renderSvg(size, paint, title); break;
    case FigureFormat::Pdf: bytes = renderPdf(size, paint, title); break;
    }
    if (error.isEmpty() && bytes.isEmpty()) error = Text::tr("the figure could not be drawn.");
    return error.isEmpty() ? bytes : QByteArray();
}

QString exportFigure(const QString& path, FigureFormat format, const ExportSize& size, const PaintFunction& paint,
                     const QString& title)
{
    const QString shown = QDir::toNativeSeparators(path);
    if (const QString why = refuseNonRegularTarget(path); !why.isEmpty())
        return Text::tr("Cannot write “%1”: %2.").arg(shown, why);
    QString error;
    const QByteArray bytes = renderFigureBytes(format, size, paint, error, title);
    if (!error.isEmpty()) return Text::tr("Cannot write “%1”: %2").arg(shown, error);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return Text::tr("Cannot write “%1”: %2").arg(shown, file.errorString());
    if (file.write(bytes) != bytes.size() || !file.commit())
        return Text::tr("Cannot write “%1”: %2").arg(shown, file.errorString());
    return {};
}

}  // namespace qkv::ui
