#include "ui/export/figure_export.hpp"

#include <QBuffer>
#include <QDir>
#include <QCoreApplication>
#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSvgGenerator>

#include <cmath>

namespace qkv::ui {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("FigureExport", text); }

// QSvgGenerator writes Qt's family names ("Sans Serif", "DejaVu Sans"); browsers only know
// installed families and CSS generic ones, so every family gets a generic fallback.
QByteArray withGenericFontFamilies(const QByteArray& svg)
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
    return out.toUtf8();
}

QByteArray renderPng(const QSizeF& size, const std::function<void(QPainter&)>& paint, QString& error)
{
    constexpr double kScale = 2.0;
    QImage image(QSize(static_cast<int>(std::ceil(size.width() * kScale)),
                       static_cast<int>(std::ceil(size.height() * kScale))),
                 QImage::Format_ARGB32_Premultiplied);
    if (image.isNull()) {
        error = tr("The figure is too large for a PNG image (%1 x %2 pixels).")
                    .arg(size.width() * kScale)
                    .arg(size.height() * kScale);
        return {};
    }
    image.setDevicePixelRatio(kScale);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        painter.setRenderHint(QPainter::TextAntialiasing);
        paint(painter);
    }
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG")) error = tr("Could not encode the PNG image.");
    return bytes;
}

QByteArray renderSvg(const QSizeF& size, const std::function<void(QPainter&)>& paint)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(size.toSize());
    generator.setViewBox(QRectF(QPointF(0, 0), size));
    generator.setResolution(96);
    generator.setTitle(tr("QKV Studio figure"));
    generator.setDescription(tr("Multi-head attention, drawn by QKV Studio"));
    {
        QPainter painter(&generator);
        paint(painter);
    }
    buffer.close();
    return withGenericFontFamilies(bytes);
}

QByteArray renderPdf(const QSizeF& size, const std::function<void(QPainter&)>& paint)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter writer(&buffer);
        writer.setResolution(96);  // one painter unit = one logical screen pixel
        writer.setPageSize(QPageSize(QSizeF(size.width() * 72.0 / 96.0, size.height() * 72.0 / 96.0),
                                     QPageSize::Point, QString(), QPageSize::ExactMatch));
        writer.setPageMargins(QMarginsF(0, 0, 0, 0));
        writer.setTitle(tr("QKV Studio figure"));
        writer.setCreator(QStringLiteral("QKV Studio"));
        QPainter painter(&writer);
        paint(painter);
    }
    buffer.close();
    return bytes;
}

}  // namespace

bool figureFormatFromPath(const QString& path, FigureFormat& format)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png")) format = FigureFormat::Png;
    else if (suffix == QLatin1String("svg")) format = FigureFormat::Svg;
    else if (suffix == QLatin1String("pdf")) format = FigureFormat::Pdf;
    else return false;
    return true;
}

QString exportFigure(const QString& path, FigureFormat format, const QSizeF& size,
                     const std::function<void(QPainter&)>& paint)
{
    if (size.isEmpty()) return tr("Nothing to export: the figure is empty.");
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return tr("Cannot write “%1”: %2").arg(QDir::toNativeSeparators(path), file.errorString());
    QString error;
    QByteArray bytes;
    switch (format) {
    case FigureFormat::Png: bytes = renderPng(size, paint, error); break;
    case FigureFormat::Svg: bytes = renderSvg(size, paint); break;
    case FigureFormat::Pdf: bytes = renderPdf(size, paint); break;
    }
    if (error.isEmpty() && bytes.isEmpty()) error = tr("The figure could not be drawn.");
    if (!error.isEmpty()) {
        file.cancelWriting();
        return tr("Cannot write “%1”: %2").arg(QDir::toNativeSeparators(path), error);
    }
    if (file.write(bytes) != bytes.size() || !file.commit())
        return tr("Cannot write “%1”: %2").arg(QDir::toNativeSeparators(path), file.errorString());
    return {};
}

}  // namespace qkv::ui
