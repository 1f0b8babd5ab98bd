#include "ui/figures/figure_render.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QMimeData>
#include <QPainter>

#include <algorithm>

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::FigureRender)
};

PaintFunction painterFor(const Figure& figure, const FigureInput& input, const QSizeF& size)
{
    return [&figure, &input, size](QPainter& painter) {
        paintFigure(painter, figure, QRectF(QPointF(0, 0), size), input);
    };
}

}  // namespace

void paintFigure(QPainter& painter, const Figure& figure, const QRectF& rect, const FigureInput& input)
{
    painter.save();
    painter.fillRect(rect, input.options.background);
    painter.setFont(input.options.font);
    painter.setPen(input.options.text);
    if (!input.result || !figure.whyUnavailable(input).isEmpty()) {
        painter.restore();
        return;
    }
    const QSizeF minimum = figure.minimumSize;
    const double scale =
        minimum.isEmpty() ? 1.0 : std::min({1.0, rect.width() / minimum.width(), rect.height() / minimum.height()});
    if (scale < 1.0) {
        // Laid out at (at least) the minimum size, then scaled down as a whole.
        painter.translate(rect.topLeft());
        painter.scale(scale, scale);
        figure.paint(painter, QRectF(QPointF(0, 0), rect.size() / scale), input);
    } else {
        figure.paint(painter, rect, input);
    }
    painter.restore();
}

QString writeFigure(const Figure& figure, const FigureInput& input, const QString& path, FigureFormat format,
                    const ExportSize& size)
{
    if (const QString why = figure.whyUnavailable(input); !why.isEmpty())
        return Text::tr("Cannot draw “%1”: %2").arg(figure.name, why);
    return exportFigure(path, format, size, painterFor(figure, input, size.size), figure.title);
}

QByteArray figureBytes(const Figure& figure, const FigureInput& input, FigureFormat format, const ExportSize& size,
                       QString& error)
{
    if (const QString why = figure.whyUnavailable(input); !why.isEmpty()) {
        error = Text::tr("Cannot draw “%1”: %2").arg(figure.name, why);
        return {};
    }
    return renderFigureBytes(format, size, painterFor(figure, input, size.size), error, figure.title);
}

QImage figureImage(const Figure& figure, const FigureInput& input, const ExportSize& size)
{
    if (!figure.whyUnavailable(input).isEmpty() || size.size.isEmpty()) return {};
    QImage image(size.pixels(), QImage::Format_ARGB32_Premultiplied);
    if (image.isNull()) return {};
    image.setDevicePixelRatio(size.pixelRatio);
    image.fill(input.options.background);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::TextAntialiasing);
    paintFigure(painter, figure, QRectF(QPointF(0, 0), size.size), input);
    return image;
}

QMimeData* figureMimeData(const Figure& figure, const FigureInput& input, const ExportSize& size, QString& error)
{
    const QByteArray svg = figureBytes(figure, input, FigureFormat::Svg, ExportSize{size.size, 1.0}, error);
    if (!error.isEmpty()) return nullptr;
    const QImage image = figureImage(figure, input, size);
    if (image.isNull()) {
        error = Text::tr("Cannot draw “%1” at %2 x %3 pixels.")
                    .arg(figure.name)
                    .arg(size.pixels().width())
                    .arg(size.pixels().height());
        return nullptr;
    }
    auto* data = new QMimeData;
    data->setImageData(image);
    data->setData(QStringLiteral("image/svg+xml"), svg);
    return data;
}

}  // namespace qkv::ui
