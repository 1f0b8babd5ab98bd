// The Q/K map figures' geometry (qk_map_figures.hpp): the plot boxes with equal scales on both
// axes, the small multiples' grid, and which point or head lies under the mouse.
#include <QCoreApplication>

#include <algorithm>
#include <cmath>

#include "ui/figures/figure_text.hpp"
#include "ui/figures/text_layout.hpp"
#include "ui/qkmap/qk_map_figures.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::QkMapFigure)
};

constexpr double kMargin = 8.0;

// Up to three lines of wrapped text.
double subtitleHeight(const QFontMetricsF& metrics, const QString& text, double width)
{
    const double height = wrappedTextRect(metrics, width, text).height();
    return std::min(height, 3 * metrics.lineSpacing()) + 2;
}

}  // namespace

bool hasProjection(const QkMapModel& model, qkv::Index head)
{
    return head >= 0 && head < static_cast<qkv::Index>(model.heads.size()) &&
           model.heads[static_cast<std::size_t>(head)].has_value();
}

QString qkMapSubtitle(const QkMapModel& model, qkv::Index head)
{
    return Text::tr(
               "rows of Q_%1 and K_%1 on the first two principal components of [Q_%1; K_%1], centred on their joint "
               "mean · %2")
        .arg(head + 1)
        .arg(shapesLine(*model.result));
}

QString qkHeadsSubtitle(const QkMapModel& model)
{
    return Text::tr(
               "each head on the first two principal components of its [Q_i; K_i] (% of the variance in each title) · "
               "%1")
        .arg(shapesLine(*model.result));
}

QString varianceText(const qkv::QkProjection& projection, int axis)
{
    return Text::tr("PC %1: %2 % of the variance")
        .arg(axis + 1)
        .arg(projection.explainedVarianceRatio[static_cast<std::size_t>(axis)] * 100.0, 0, 'f', 1);
}

ScatterFrame scatterFrame(const QRectF& plot, const qkv::QkProjection& p)
{
    double minX = 0, maxX = 0, minY = 0, maxY = 0;
    bool first = true;
    auto include = [&](double x, double y) {
        if (!std::isfinite(x) || !std::isfinite(y)) return;
        if (first) {
            minX = maxX = x;
            minY = maxY = y;
            first = false;
        }
        minX = std::min(minX, x);
        maxX = std::max(maxX, x);
        minY = std::min(minY, y);
        maxY = std::max(maxY, y);
    };
    for (qkv::Index i = 0; i < p.queries.rows(); ++i) include(p.queries(i, 0), p.queries(i, 1));
    for (qkv::Index j = 0; j < p.keys.rows(); ++j) include(p.keys(j, 0), p.keys(j, 1));
    ScatterFrame frame;
    frame.plot = plot;
    frame.dataCentre = QPointF((minX + maxX) / 2, (minY + maxY) / 2);
    const double spanX = std::max(maxX - minX, 1e-12), spanY = std::max(maxY - minY, 1e-12);
    const double inset = 0.92;  // markers and labels stay inside the box
    frame.scale = inset * std::min(plot.width() / spanX, plot.height() / spanY);
    if (maxX - minX < 1e-12 && maxY - minY < 1e-12) frame.scale = 1.0;  // every point equal
    return frame;
}

QkMapGeometry qkMapGeometry(const QRectF& target, const QkMapModel& model, qkv::Index head,
                            const QFontMetricsF& metrics)
{
    QkMapGeometry g;
    const double line = metrics.lineSpacing();
    const QRectF area = target.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    g.title = QRectF(area.left(), area.top(), area.width(), line * 1.3);
    g.subtitle = QRectF(area.left(), g.title.bottom(), area.width(),
                        model.result ? subtitleHeight(metrics, qkMapSubtitle(model, head), area.width()) : line);
    g.legend = QRectF(area.left(), area.bottom() - 2 * line - 4, area.width(), 2 * line + 4);
    const double tickWidth = metrics.horizontalAdvance(QStringLiteral("−0.000")) + 6;
    const double left = area.left() + line + 4 + tickWidth;
    const double top = g.subtitle.bottom() + 8;
    const double bottom = g.legend.top() - 2 * line - 8;
    g.plot = QRectF(left, top, std::max(20.0, area.right() - left - 4), std::max(20.0, bottom - top));
    g.xTitle = QRectF(g.plot.left(), g.plot.bottom() + line + 4, g.plot.width(), line);
    g.yTitle = QRectF(area.left(), g.plot.top(), line, g.plot.height());
    g.valid = hasProjection(model, head);
    if (g.valid) g.frame = scatterFrame(g.plot, *model.heads[static_cast<std::size_t>(head)]);
    return g;
}

QkPointHit qkPointAt(const QkMapGeometry& g, const QkMapModel& model, qkv::Index head, const QPointF& position)
{
    QkPointHit hit;
    if (!g.valid || !g.plot.adjusted(-8, -8, 8, 8).contains(position)) return hit;
    const qkv::QkProjection& p = *model.heads[static_cast<std::size_t>(head)];
    double best = 8.0 * 8.0;
    for (qkv::Index i = 0; i < p.queries.rows(); ++i) {
        const QPointF d = g.frame.map(p.queries(i, 0), p.queries(i, 1)) - position;
        const double dd = QPointF::dotProduct(d, d);
        if (dd < best) {
            best = dd;
            hit = {i, -1};
        }
    }
    for (qkv::Index j = 0; j < p.keys.rows(); ++j) {
        const QPointF d = g.frame.map(p.keys(j, 0), p.keys(j, 1)) - position;
        const double dd = QPointF::dotProduct(d, d);
        if (dd < best) {
            best = dd;
            hit = {-1, j};
        }
    }
    return hit;
}

int QkHeadsGeometry::headAt(const QPointF& point) const
{
    for (std::size_t i = 0; i < panels.size(); ++i)
        if (panels[i].contains(point)) return static_cast<int>(i);
    return -1;
}

QkHeadsGeometry qkHeadsGeometry(const QRectF& target, const QkMapModel& model, const QFontMetricsF& metrics,
                                bool withLegend)
{
    QkHeadsGeometry g;
    const double line = metrics.lineSpacing();
    const QRectF area = target.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    g.title = QRectF(area.left(), area.top(), area.width(), line * 1.3);
    g.subtitle = QRectF(area.left(), g.title.bottom(), area.width(),
                        model.result ? subtitleHeight(metrics, qkHeadsSubtitle(model), area.width()) : line);
    g.legend = withLegend ? QRectF(area.left(), area.bottom() - 2 * line - 4, area.width(), 2 * line + 4)
                          : QRectF(area.left(), area.bottom(), area.width(), 0);
    const int count = static_cast<int>(model.heads.size());
    if (count == 0) return g;
    const QRectF grid(area.left(), g.subtitle.bottom() + 6, area.width(), g.legend.top() - g.subtitle.bottom() - 12);
    constexpr double kGap = 10.0;
    // The column count that gives the biggest square plots.
    int bestColumns = 1;
    double bestSide = 0;
    for (int columns = 1; columns <= count; ++columns) {
        const int rows = (count + columns - 1) / columns;
        const double w = (grid.width() - (columns - 1) * kGap) / columns;
        const double h = (grid.height() - (rows - 1) * kGap) / rows - line;
        const double side = std::min(w, h);
        if (side > bestSide) {
            bestSide = side;
            bestColumns = columns;
        }
    }
    const int rows = (count + bestColumns - 1) / bestColumns;
    const double w = (grid.width() - (bestColumns - 1) * kGap) / bestColumns;
    const double h = (grid.height() - (rows - 1) * kGap) / rows;
    for (int i = 0; i < count; ++i) {
        const QRectF panel(grid.left() + (i % bestColumns) * (w + kGap), grid.top() + (i / bestColumns) * (h + kGap), w,
                           h);
        const double side = std::max(10.0, std::min(panel.width(), panel.height() - line - 2));
        const QRectF plot(panel.center().x() - side / 2, panel.top() + line + 2, side, side);
        g.panels.push_back(panel);
        g.plots.push_back(plot);
        g.frames.push_back(hasProjection(model, i) ? scatterFrame(plot, *model.heads[static_cast<std::size_t>(i)])
                                                   : ScatterFrame{plot, {}, 1});
    }
    return g;
}

}  // namespace qkv::ui
