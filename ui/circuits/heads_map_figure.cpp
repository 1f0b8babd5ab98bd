#include "ui/circuits/heads_map_figure.hpp"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/figures/text_layout.hpp"
#include "ui/wholemodel/whole_model_figure_parts.hpp"

namespace qkv::ui {
namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::HeadsMap)
};

constexpr double kPointRadius = 5.0;
constexpr std::size_t kLabelledPoints = 64;

// The data range of one axis: its fixed range, grown to hold every point.
void axisRange(const HeadsMapData& data, bool x, double& minimum, double& maximum)
{
    headsMapAxisRange(x ? data.axes.x : data.axes.y, minimum, maximum);
    for (const HeadPoint& point : data.points) {
        minimum = std::min(minimum, x ? point.x : point.y);
        maximum = std::max(maximum, x ? point.x : point.y);
    }
    const double pad = (maximum - minimum) * 0.04;
    minimum -= pad;
    maximum += pad;
}

double legendWidth(const HeadsMapData& data, const QFontMetricsF& metrics)
{
    return widestText(data.layerNames, metrics, 220) + 30;
}

PlotFrame makeFrame(const QRectF& area, const HeadsMapData& data, const QFontMetricsF& metrics)
{
    double xMin = 0, xMax = 1, yMin = 0, yMax = 1;
    axisRange(data, true, xMin, xMax);
    axisRange(data, false, yMin, yMax);
    return {area, metrics, xMin, xMax, yMin, yMax};
}

}  // namespace

HeadsMapLayout::HeadsMapLayout(const QRectF& rect, const HeadsMapData& data, const QString& modelLine,
                               const QFontMetricsF& metrics)
    : title_(rect.left() + 8, rect.top() + 4, rect.width() - 16, metrics.height() * 1.4),
      subtitle_(title_.left(), title_.bottom(), title_.width(),
                wrappedTextRect(metrics, title_.width(), headsMapSubtitle(data, modelLine)).height() + 4),
      legend_(rect.right() - 8 - legendWidth(data, metrics), subtitle_.bottom() + 8, legendWidth(data, metrics),
              metrics.height() * 1.3 * static_cast<double>(data.layerNames.size() + 1)),
      frame_(makeFrame(QRectF(rect.left() + 4, subtitle_.bottom() + 4, legend_.left() - rect.left() - 12,
                              rect.bottom() - subtitle_.bottom() - 8),
                       data, metrics))
{}

int HeadsMapLayout::pointAt(const HeadsMapData& data, const QPointF& position) const
{
    int best = -1;
    double bestDistance = (kPointRadius + 4) * (kPointRadius + 4);
    for (std::size_t i = 0; i < data.points.size(); ++i) {
        const QPointF d = frame_.toPoint(data.points[i].x, data.points[i].y) - position;
        const double distance = QPointF::dotProduct(d, d);
        if (distance <= bestDistance) {
            bestDistance = distance;
            best = static_cast<int>(i);
        }
    }
    return best;
}

QString headsMapSubtitle(const HeadsMapData& data, const QString& modelLine)
{
    const int drawn = static_cast<int>(data.points.size());
    QString text = drawn == 1 ? Text::tr("%1 · 1 head of the self-attention layers").arg(modelLine)
                              : Text::tr("%1 · %2 heads of the self-attention layers").arg(modelLine).arg(drawn);
    if (data.withoutValue > 0) text += Text::tr(" · %1 without a value on these axes").arg(data.withoutValue);
    if (!data.ablationToken.isEmpty() &&
        (data.axes.x == HeadsMapAxis::Ablation || data.axes.y == HeadsMapAxis::Ablation))
        text += Text::tr(" · ablation: the prediction “%1”").arg(data.ablationToken);
    if (!data.note.isEmpty()) text += QStringLiteral(" · ") + data.note;
    return text;
}

namespace {

void paintLegend(QPainter& painter, const HeadsMapLayout& layout, const HeadsMapData& data,
                 const FigureOptions& options, const QFontMetricsF& metrics)
{
    // One swatch per layer.
    const double line = metrics.height() * 1.3;
    painter.setPen(options.text);
    painter.drawText(QRectF(layout.legend().left(), layout.legend().top(), layout.legend().width(), line),
                     Qt::AlignLeft | Qt::AlignVCenter, Text::tr("colour: layer"));
    const int count = static_cast<int>(data.layerNames.size());
    for (int i = 0; i < count; ++i) {
        const QRectF row(layout.legend().left(), layout.legend().top() + line * (i + 1), layout.legend().width(), line);
        painter.setPen(Qt::NoPen);
        painter.setBrush(layerColor(i, count));
        painter.drawEllipse(QPointF(row.left() + 7, row.center().y()), kPointRadius, kPointRadius);
        painter.setPen(options.text);
        painter.drawText(row.adjusted(20, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, data.layerNames[i]);
    }
}

// Each head named beside its point ("1.3"), as an export has no hover; too many would be a blur.
void paintPointLabels(QPainter& painter, const HeadsMapLayout& layout, const HeadsMapData& data,
                      const FigureOptions& options, const QFontMetricsF& metrics)
{
    if (data.points.size() > kLabelledPoints) return;
    QColor muted = options.text;
    muted.setAlphaF(0.75f);
    painter.setPen(muted);
    painter.setClipping(false);
    const double width = metrics.horizontalAdvance(QStringLiteral("00.00")) + 4;
    for (const HeadPoint& point : data.points) {
        const QPointF at = layout.frame().toPoint(point.x, point.y);
        // Right of the point, or left of it near the plot's right edge.
        const bool left = at.x() + kPointRadius + 2 + width > layout.frame().plot().right();
        const QRectF box(left ? at.x() - kPointRadius - 2 - width : at.x() + kPointRadius + 2,
                         at.y() - metrics.height() / 2, width, metrics.height());
        painter.drawText(box, (left ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter, point.name);
    }
}

}  // namespace

void paintHeadsMap(QPainter& painter, const QRectF& rect, const HeadsMapData& data, const QString& modelLine,
                   const FigureOptions& options, qkv::ModelHead selected)
{
    painter.save();
    painter.setFont(options.font);
    const QFontMetricsF metrics(options.font, painter.device());
    const HeadsMapLayout layout(rect, data, modelLine, metrics);
    paintFigureHeading(painter, layout.title(), layout.subtitle(), Text::tr("Every head placed by what it does"),
                       headsMapSubtitle(data, modelLine), options);
    layout.frame().paint(painter, options, headsMapAxisTitle(data.axes.x), headsMapAxisTitle(data.axes.y));
    paintLegend(painter, layout, data, options, metrics);
    painter.setClipRect(layout.frame().plot().adjusted(-kPointRadius, -kPointRadius, kPointRadius, kPointRadius));
    const int count = static_cast<int>(data.layerNames.size());
    for (const HeadPoint& point : data.points) {
        painter.setPen(QPen(options.background, 1));
        painter.setBrush(layerColor(point.layerSlot, count));
        painter.drawEllipse(layout.frame().toPoint(point.x, point.y), kPointRadius, kPointRadius);
    }
    paintPointLabels(painter, layout, data, options, metrics);
    if (options.showSelection)
        for (const HeadPoint& point : data.points)
            if (point.head == selected) {
                painter.setPen(QPen(kSelectionColor, 2.5));
                painter.setBrush(Qt::NoBrush);
                painter.drawEllipse(layout.frame().toPoint(point.x, point.y), kPointRadius + 3, kPointRadius + 3);
            }
    painter.restore();
}

}  // namespace qkv::ui
