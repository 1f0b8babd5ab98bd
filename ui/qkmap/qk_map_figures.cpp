#include "ui/qkmap/qk_map_figures.hpp"

#include <QCoreApplication>
#include <QPaintEngine>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/figures/text_layout.hpp"
#include "ui/render/heatmap_painter.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::QkMapFigure)
};

const QColor kQueryColor(0x2c, 0x7f, 0xb8), kKeyColor(0x1b, 0x9e, 0x77);

QColor withAlpha(QColor c, int alpha)
{
    c.setAlpha(alpha);
    return c;
}

void drawQueryMarker(QPainter& painter, const QPointF& p, double r)
{
    painter.setPen(QPen(kQueryColor.darker(140), 0.8));
    painter.setBrush(kQueryColor);
    painter.drawEllipse(p, r, r);
}

void addKeyMarker(QPainterPath& path, const QPointF& p, double r);
void drawQueryMarker(QPainter& painter, const QPointF& p, double r);
void drawKeyMarker(QPainter& painter, const QPointF& p, double r);

// One marker drawn once, at the device's pixel ratio, centred in a transparent image.
QImage markerStamp(bool query, double r, const QPainter& target)
{
    const QTransform t = target.deviceTransform();
    const double ratio = std::max(1.0, std::hypot(t.m11(), t.m12()));
    const double side = std::ceil(2 * r * 1.3 + 4);
    QImage stamp(QSize(static_cast<int>(side * ratio), static_cast<int>(side * ratio)),
                 QImage::Format_ARGB32_Premultiplied);
    stamp.setDevicePixelRatio(ratio);
    stamp.fill(Qt::transparent);
    QPainter painter(&stamp);
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QPointF centre(side / 2, side / 2);
    if (query)
        drawQueryMarker(painter, centre, r);
    else
        drawKeyMarker(painter, centre, r);
    return stamp;
}

void addKeyMarker(QPainterPath& path, const QPointF& p, double r)
{
    path.moveTo(p + QPointF(0, -r * 1.2));
    path.lineTo(p + QPointF(r * 1.1, r * 0.8));
    path.lineTo(p + QPointF(-r * 1.1, r * 0.8));
    path.closeSubpath();
}

void drawKeyMarker(QPainter& painter, const QPointF& p, double r)
{
    QPainterPath triangle;
    addKeyMarker(triangle, p, r);
    painter.setPen(QPen(kKeyColor, std::max(1.0, r * 0.45)));
    painter.setBrush(Qt::NoBrush);
    painter.drawPath(triangle);
}

// Every key and query marker of a head.
void paintMarkers(QPainter& painter, const ScatterFrame& frame, const qkv::QkProjection& p, double marker)
{
    if (painter.paintEngine() && painter.paintEngine()->type() == QPaintEngine::Raster) {
        // On pixels, each marker is a copy of one antialiased stamp (a thousand points per head
        // in small multiples: ~10x faster than drawing each shape).
        const QImage keyStamp = markerStamp(false, marker, painter), queryStamp = markerStamp(true, marker, painter);
        const auto centre = [](const QImage& stamp) {
            return QPointF(stamp.width(), stamp.height()) / stamp.devicePixelRatio() / 2;
        };
        for (qkv::Index j = 0; j < p.keys.rows(); ++j)
            painter.drawImage(frame.map(p.keys(j, 0), p.keys(j, 1)) - centre(keyStamp), keyStamp);
        for (qkv::Index i = 0; i < p.queries.rows(); ++i)
            painter.drawImage(frame.map(p.queries(i, 0), p.queries(i, 1)) - centre(queryStamp), queryStamp);
        return;
    }
    // Vector output (SVG, PDF): real shapes.
    for (qkv::Index j = 0; j < p.keys.rows(); ++j)
        drawKeyMarker(painter, frame.map(p.keys(j, 0), p.keys(j, 1)), marker);
    for (qkv::Index i = 0; i < p.queries.rows(); ++i)
        drawQueryMarker(painter, frame.map(p.queries(i, 0), p.queries(i, 1)), marker);
}

// The large map's token labels (qk_map_labels.hpp): leader lines, the texts, and the note that
// counts the labels left out.
void paintLabels(QPainter& painter, const QkMapGeometry& g, const QkMapModel& model, qkv::Index head,
                 const FigureOptions& options)
{
    const QFontMetricsF metrics(painter.font(), painter.device());
    const QkMapLabels labels = qkMapLabels(g, model, head, options.query, metrics);
    const QColor queryText = options.text.lightness() > 128 ? kQueryColor.lighter(160) : kQueryColor.darker(130);
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    for (const QkLabel& label : labels.placement.labels) {
        if (!label.leader) continue;
        painter.setPen(QPen(withAlpha(options.text, 110), 0.8));
        const QPointF end(std::clamp(label.anchor.x(), label.rect.left(), label.rect.right()),
                          std::clamp(label.anchor.y(), label.rect.top(), label.rect.bottom()));
        painter.drawLine(label.anchor, end);
    }
    for (const QkLabel& label : labels.placement.labels) {
        // A faint halo: a word stays readable where an attention line or a grid line crosses it.
        painter.fillRect(label.rect, withAlpha(options.background, 170));
        painter.setPen(label.query ? queryText : kKeyColor.darker(150));
        painter.drawText(label.rect, Qt::AlignCenter, label.text);
    }
    if (!labels.note.isEmpty()) {
        painter.fillRect(labels.noteRect, withAlpha(options.background, 220));
        painter.setPen(withAlpha(options.text, 190));
        drawFittedText(painter, labels.noteRect, Qt::AlignRight | Qt::AlignVCenter, painter.font(), labels.note);
    }
    painter.restore();
}

// The marks of one head in `frame`: attention lines, keys, queries.
void paintScatter(QPainter& painter, const ScatterFrame& frame, const QkMapModel& model, qkv::Index head,
                  const FigureOptions& options, double marker)
{
    const qkv::QkProjection& p = *model.heads[static_cast<std::size_t>(head)];
    painter.save();
    painter.setClipRect(frame.plot.adjusted(-marker * 2, -marker * 2, marker * 2, marker * 2));
    painter.setRenderHint(QPainter::Antialiasing, true);
    const qkv::Index query = std::clamp<qkv::Index>(options.query, 0, std::max<qkv::Index>(p.queries.rows() - 1, 0));
    const QPointF from = frame.map(p.queries(query, 0), p.queries(query, 1));
    // The query's attention: one line per key, opacity = weight.
    for (const AttentionLine& line : attentionLines(*model.result, head, query)) {
        if (line.opacity * 255.0 < 0.5) continue;  // would be drawn fully transparent
        QColor c = options.text;
        c.setAlphaF(static_cast<float>(line.opacity));
        painter.setPen(QPen(c, std::max(1.0, marker * 0.4)));
        painter.drawLine(from, frame.map(p.keys(line.key, 0), p.keys(line.key, 1)));
    }
    paintMarkers(painter, frame, p, marker);
    if (options.showSelection) {
        painter.setBrush(Qt::NoBrush);
        painter.setPen(QPen(kSelectionColor, 2));
        painter.drawEllipse(from, marker + 4, marker + 4);
        if (options.key >= 0 && options.key < p.keys.rows())
            painter.drawEllipse(frame.map(p.keys(options.key, 0), p.keys(options.key, 1)), marker + 4, marker + 4);
    }
    painter.restore();
}

void paintLegend(QPainter& painter, const QRectF& rect, const QkMapModel& model, const FigureOptions& options)
{
    const QFontMetricsF metrics(painter.font(), painter.device());
    const qkv::Result& r = *model.result;
    const qkv::Index query =
        std::clamp<qkv::Index>(options.query, 0, std::max<qkv::Index>(r.attention.queryCount() - 1, 0));
    const QString lines = qkLinesText(model, query);
    const QkLegendLayout l = qkLegendLayout(rect, model, lines, metrics);
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    drawQueryMarker(painter, QPointF(l.queries.left() + 6, l.queries.center().y()), 4);
    drawKeyMarker(painter, QPointF(l.keys.left() + 6, l.keys.center().y() + 1), 4);
    const double firstLine = l.lines.top() + metrics.lineSpacing() / 2;
    painter.setPen(QPen(withAlpha(options.text, 200), 1.5));
    painter.drawLine(QPointF(l.lines.left() + 2, firstLine), QPointF(l.lines.left() + 20, firstLine));
    painter.setPen(options.text);
    painter.drawText(l.queries.adjusted(16, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, l.queriesText);
    painter.drawText(l.keys.adjusted(16, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, l.keysText);
    painter.drawText(l.lines.adjusted(32, 0, 0, 0), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, lines);
    painter.restore();
}

void drawTitles(QPainter& painter, const QRectF& title, const QRectF& subtitle, const QString& titleText,
                const QString& subtitleText, const FigureOptions& options)
{
    QFont big = painter.font();
    big.setBold(true);
    big.setPointSizeF(big.pointSizeF() * 1.12);
    painter.setPen(options.text);
    drawFittedText(painter, title, Qt::AlignLeft | Qt::AlignVCenter, big, titleText);  // smaller, never cut
    const QFontMetricsF metrics(painter.font(), painter.device());
    painter.setPen(withAlpha(options.text, 170));
    painter.drawText(subtitle, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, subtitleText);
}

// Ticks in principal-component units, the same step on both axes (equal scales), and the axis
// titles with their explained variance.
void paintAxes(QPainter& painter, const QkMapGeometry& g, const qkv::QkProjection& p, const QColor& text)
{
    const QFontMetricsF metrics(painter.font(), painter.device());
    const double halfX = g.plot.width() / 2 / g.frame.scale, halfY = g.plot.height() / 2 / g.frame.scale;
    const QPointF c = g.frame.dataCentre;
    for (double v : niceTicks(c.x() - halfX, c.x() + halfX, std::clamp(static_cast<int>(g.plot.width() / 90), 3, 8))) {
        const double x = g.frame.map(v, 0).x();
        painter.setPen(QPen(withAlpha(text, 40), 1));
        painter.drawLine(QPointF(x, g.plot.top()), QPointF(x, g.plot.bottom()));
        painter.setPen(text);
        painter.drawText(QRectF(x - 40, g.plot.bottom() + 2, 80, metrics.height()), Qt::AlignCenter, readableNumber(v));
    }
    for (double v : niceTicks(c.y() - halfY, c.y() + halfY, std::clamp(static_cast<int>(g.plot.height() / 70), 3, 8))) {
        const double y = g.frame.map(0, v).y();
        painter.setPen(QPen(withAlpha(text, 40), 1));
        painter.drawLine(QPointF(g.plot.left(), y), QPointF(g.plot.right(), y));
        painter.setPen(text);
        painter.drawText(
            QRectF(g.yTitle.right(), y - metrics.height() / 2, g.plot.left() - g.yTitle.right() - 4, metrics.height()),
            Qt::AlignRight | Qt::AlignVCenter, readableNumber(v));
    }
    painter.setPen(text);
    painter.drawText(g.xTitle, Qt::AlignCenter,
                     metrics.elidedText(varianceText(p, 0), Qt::ElideRight, g.xTitle.width()));
    painter.save();
    painter.translate(g.yTitle.center());
    painter.rotate(-90);
    painter.drawText(QRectF(-g.yTitle.height() / 2, -g.yTitle.width() / 2, g.yTitle.height(), g.yTitle.width()),
                     Qt::AlignCenter, metrics.elidedText(varianceText(p, 1), Qt::ElideRight, g.yTitle.height()));
    painter.restore();
}

}  // namespace

void paintQkMap(QPainter& painter, const QRectF& target, const QkMapModel& model, const FigureOptions& options)
{
    painter.save();
    painter.setFont(options.font);
    painter.fillRect(target, options.background);
    painter.setPen(options.text);
    if (!model.result) {
        painter.drawText(target, Qt::AlignCenter, Text::tr("No result yet."));
        painter.restore();
        return;
    }
    const QFontMetricsF metrics(painter.font(), painter.device());
    const qkv::Index head = options.head;
    const QkMapGeometry g = qkMapGeometry(target, model, head, metrics);
    const qkv::Result& r = *model.result;
    drawTitles(painter, g.title, g.subtitle,
               Text::tr("Q/K map · %1 · %2").arg(headName(head), modeTitle(r.config.mode)), qkMapSubtitle(model, head),
               options);
    QColor frameColor = withAlpha(options.text, 120);
    painter.setPen(QPen(frameColor, 1));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(g.plot);
    if (!g.valid) {
        const QString error = head >= 0 && head < static_cast<qkv::Index>(model.errors.size())
                                  ? model.errors[static_cast<std::size_t>(head)]
                                  : Text::tr("No such head.");
        painter.setPen(options.text);
        painter.drawText(g.plot, Qt::AlignCenter | Qt::TextWordWrap, Text::tr("No map for this head: %1").arg(error));
        painter.restore();
        return;
    }
    const qkv::QkProjection& p = *model.heads[static_cast<std::size_t>(head)];
    paintAxes(painter, g, p, options.text);
    paintScatter(painter, g.frame, model, head, options, kQkMapMarker);
    paintLabels(painter, g, model, head, options);
    painter.setPen(options.text);
    painter.drawText(g.caveat, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, qkDistanceCaveat(model, head));
    paintLegend(painter, g.legend, model, options);
    painter.restore();
}

void paintQkMapHeads(QPainter& painter, const QRectF& target, const QkMapModel& model, const FigureOptions& options,
                     bool withLegend)
{
    painter.save();
    painter.setFont(options.font);
    painter.fillRect(target, options.background);
    painter.setPen(options.text);
    if (!model.result) {
        painter.drawText(target, Qt::AlignCenter, Text::tr("No result yet."));
        painter.restore();
        return;
    }
    const QFontMetricsF metrics(painter.font(), painter.device());
    const QkHeadsGeometry g = qkHeadsGeometry(target, model, metrics, withLegend);
    const qkv::Result& r = *model.result;
    drawTitles(painter, g.title, g.subtitle, Text::tr("Q/K maps of every head · %1").arg(modeTitle(r.config.mode)),
               qkHeadsSubtitle(model), options);
    for (std::size_t i = 0; i < g.panels.size(); ++i) {
        const auto head = static_cast<qkv::Index>(i);
        const QRectF& plot = g.plots[i];
        const bool chosen = options.showSelection && head == options.head;
        QString title = headName(head);
        if (hasProjection(model, head)) {
            const auto& ratio = model.heads[i]->explainedVarianceRatio;
            title += Text::tr(" · %1 %, %2 %").arg(ratio[0] * 100, 0, 'f', 0).arg(ratio[1] * 100, 0, 'f', 0);
        }
        if (r.attention.isAblated(head)) title += Text::tr(" (off)");
        QFont titleFont = painter.font();
        titleFont.setBold(chosen);
        painter.setPen(chosen ? kSelectionColor : options.text);
        drawFittedText(painter,
                       QRectF(g.panels[i].left(), g.panels[i].top(), g.panels[i].width(), metrics.lineSpacing()),
                       Qt::AlignCenter, titleFont, title);
        painter.setPen(chosen ? QPen(kSelectionColor, 2) : QPen(withAlpha(options.text, 120), 1));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(plot);
        if (!hasProjection(model, head)) {
            painter.drawText(plot, Qt::AlignCenter | Qt::TextWordWrap, model.errors[i]);
            continue;
        }
        FigureOptions small = options;
        small.showSelection = false;
        paintScatter(painter, g.frames[i], model, head, small, std::clamp(plot.width() / 90, 1.5, 3.0));
    }
    if (withLegend) paintLegend(painter, g.legend, model, options);
    painter.restore();
}

std::vector<Figure> qkMapFigures()
{
    Figure one;
    one.name = QStringLiteral("qk-map");
    one.title = Text::tr("Q/K map of the selected head");
    one.view = kQkMapViewId;
    one.defaultSize = QSizeF(900, 800);
    one.unavailable = &whyNoSelectedHead;
    one.paint = [](QPainter& painter, const QRectF& rect, const FigureInput& input) {
        // One head's projection is enough here.
        auto model = std::make_shared<QkMapModel>();
        model->result = input.result;
        const qkv::Index heads = input.result->attention.headCount();
        model->heads.resize(static_cast<std::size_t>(heads));
        model->errors.resize(static_cast<std::size_t>(heads));
        const qkv::Index head = input.options.head;
        if (head >= 0 && head < heads) {
            auto projection = qkv::qkProjection(*input.result, head);
            if (projection)
                model->heads[static_cast<std::size_t>(head)] = std::move(projection).value();
            else
                model->errors[static_cast<std::size_t>(head)] = QString::fromStdString(projection.error());
        }
        paintQkMap(painter, rect, *model, input.options);
    };
    Figure all;
    all.name = QStringLiteral("qk-map-heads");
    all.title = Text::tr("Q/K maps of every head");
    all.view = kQkMapViewId;
    all.defaultSize = QSizeF(1200, 900);
    all.unavailable = &whyNoSelectedHead;
    all.paint = [](QPainter& painter, const QRectF& rect, const FigureInput& input) {
        paintQkMapHeads(painter, rect, *QkMapModel::build(input.result), input.options);
    };
    return {one, all};
}

}  // namespace qkv::ui
