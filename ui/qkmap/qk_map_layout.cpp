// The Q/K map figures' geometry (qk_map_figures.hpp): the plot boxes with equal scales on both
// axes, the small multiples' grid, and which point or head lies under the mouse.
#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <unordered_map>

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
constexpr int kLabelAllBelow = 64;  // points; above, only the selected query and its strongest keys
constexpr int kStrongestKeys = 8;

constexpr double kMarkerRoom = 16.0;  // a legend marker and the gap before its words

double subtitleHeight(const QFontMetricsF& metrics, const QString& text, double width)
{
    return wrappedTextRect(metrics, width, text).height() + 2;
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

QString qkDistanceCaveat(const QkMapModel& model, qkv::Index head)
{
    const qkv::Index d_k = model.result->attention.d_k();
    QString kept;
    if (hasProjection(model, head)) {
        const auto& ratio = model.heads[static_cast<std::size_t>(head)]->explainedVarianceRatio;
        kept = Text::tr(" (%1 % of the variance)").arg((ratio[0] + ratio[1]) * 100.0, 0, 'f', 1);
    }
    return Text::tr(
               "Distance on this map is not the score: a query's score for a key is the dot product "
               "q·k/√d_k over all d_k = %1 dimensions (equation 1), and the map keeps only two directions%2. "
               "Near points need not attend to each other; the lines show the real weights.")
        .arg(d_k)
        .arg(kept);
}

namespace {
QString linesTextNaming(const QString& queryName)
{
    return Text::tr("attention of query %1, opacity = weight").arg(queryName);
}
}  // namespace

QString qkLinesText(const QkMapModel& model, qkv::Index query)
{
    return linesTextNaming(tokenName(model.result->queryLabels, query));
}

QkLegendLayout qkLegendLayout(const QRectF& rect, const QkMapModel& model, const QString& linesText,
                              const QFontMetricsF& metrics)
{
    QkLegendLayout l;
    l.queriesText = Text::tr("queries: %1").arg(querySentence(model.result->config.mode));
    l.keysText = Text::tr("keys: %1").arg(keySentence(model.result->config.mode));
    const double line = metrics.lineSpacing();
    const double queries = kMarkerRoom + metrics.horizontalAdvance(l.queriesText) + 4;
    const double keys = kMarkerRoom + metrics.horizontalAdvance(l.keysText) + 4;
    l.queries = QRectF(rect.left(), rect.top(), queries, line);
    if (queries + 14 + keys <= rect.width())
        l.keys = QRectF(l.queries.right() + 14, rect.top(), keys, line);
    else
        l.keys = QRectF(rect.left(), l.queries.bottom(), keys, line);
    const double wrapped = wrappedTextRect(metrics, rect.width() - 2 * kMarkerRoom, linesText).height();
    l.lines = QRectF(rect.left(), l.keys.bottom() + 2, rect.width(), wrapped);
    return l;
}

double qkLegendHeight(const QkMapModel& model, double width, const QFontMetricsF& metrics)
{
    // The tallest over the queries (the legend names the selected one, and must not jump when
    // another is selected): the legend naming the widest token at the position with the most
    // digits. Greedy word wrapping needs no fewer lines when no word is narrower, so this is the
    // tallest, without laying out a legend for each of thousands of queries.
    const std::vector<std::string>& labels = model.result->queryLabels;
    const qkv::Index queries = std::max<qkv::Index>(model.result->attention.queryCount(), 1);
    std::unordered_map<std::string, double> advances;  // a long sentence repeats its tokens
    QString widest = tokenText(labels, 0);
    double widestAdvance = -1;
    for (qkv::Index i = 0; i < queries && i < static_cast<qkv::Index>(labels.size()); ++i) {
        const std::string& label = labels[static_cast<std::size_t>(i)];
        const auto [at, added] = advances.try_emplace(label, 0.0);
        if (!added) continue;
        const QString text = QString::fromStdString(label);
        at->second = metrics.horizontalAdvance(text);
        if (at->second > widestAdvance) {
            widestAdvance = at->second;
            widest = text;
        }
    }
    const QString lines = linesTextNaming(tokenName(widest, queries - 1));
    return qkLegendLayout(QRectF(0, 0, width, 0), model, lines, metrics).lines.bottom() + 4;
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
    const double legend = model.result ? qkLegendHeight(model, area.width(), metrics) : 2 * line + 4;
    g.legend = QRectF(area.left(), area.bottom() - legend, area.width(), legend);
    const double caveat =
        model.result ? wrappedTextRect(metrics, area.width(), qkDistanceCaveat(model, head)).height() : 0;
    g.caveat = QRectF(area.left(), g.legend.top() - caveat - 4, area.width(), caveat);
    const double tickWidth = metrics.horizontalAdvance(QStringLiteral("−0.000")) + 6;
    const double left = area.left() + line + 4 + tickWidth;
    const double top = g.subtitle.bottom() + 8;
    const double bottom = g.caveat.top() - 2 * line - 8;
    g.plot = QRectF(left, top, std::max(20.0, area.right() - left - 4), std::max(20.0, bottom - top));
    g.xTitle = QRectF(g.plot.left(), g.plot.bottom() + line + 4, g.plot.width(), line);
    g.yTitle = QRectF(area.left(), g.plot.top(), line, g.plot.height());
    g.valid = hasProjection(model, head);
    if (g.valid) g.frame = scatterFrame(g.plot, *model.heads[static_cast<std::size_t>(head)]);
    return g;
}

namespace {

// The labels asked for, in priority order: the selected query, the keys by the weight it gives
// them, then the other queries; for a big map only the query and its strongest keys.
std::vector<QkLabelCandidate> labelCandidates(const ScatterFrame& frame, const QkMapModel& model, qkv::Index head,
                                              qkv::Index query)
{
    const qkv::QkProjection& p = *model.heads[static_cast<std::size_t>(head)];
    const qkv::Result& r = *model.result;
    const qkv::MatrixF& a = r.attention.heads[static_cast<std::size_t>(head)].attention;
    std::vector<qkv::Index> keys(static_cast<std::size_t>(p.keys.rows()));
    std::iota(keys.begin(), keys.end(), 0);
    std::stable_sort(keys.begin(), keys.end(), [&](qkv::Index x, qkv::Index y) { return a(query, x) > a(query, y); });
    const bool all = p.queries.rows() + p.keys.rows() <= kLabelAllBelow;
    if (!all) keys.resize(std::min<std::size_t>(kStrongestKeys, keys.size()));
    std::vector<QkLabelCandidate> candidates;
    auto addQuery = [&](qkv::Index i) {
        candidates.push_back({tokenText(r.queryLabels, i), frame.map(p.queries(i, 0), p.queries(i, 1)), true});
    };
    addQuery(query);
    for (qkv::Index j : keys) candidates.push_back({tokenText(r.keyLabels, j), frame.map(p.keys(j, 0), p.keys(j, 1))});
    if (all)
        for (qkv::Index i = 0; i < p.queries.rows(); ++i)
            if (i != query) addQuery(i);
    return candidates;
}

}  // namespace

QkMapLabels qkMapLabels(const QkMapGeometry& g, const QkMapModel& model, qkv::Index head, qkv::Index query,
                        const QFontMetricsF& metrics)
{
    QkMapLabels labels;
    if (!g.valid) return labels;
    const qkv::QkProjection& p = *model.heads[static_cast<std::size_t>(head)];
    if (p.queries.rows() == 0) return labels;
    query = std::clamp<qkv::Index>(query, 0, p.queries.rows() - 1);
    const std::vector<QkLabelCandidate> candidates = labelCandidates(g.frame, model, head, query);
    // No label covers a marker: a word on a point hides the point it does not name.
    std::vector<QRectF> markers;
    const double r = kQkMapMarker + 1;
    for (qkv::Index i = 0; i < p.queries.rows(); ++i)
        markers.emplace_back(g.frame.map(p.queries(i, 0), p.queries(i, 1)) - QPointF(r, r), QSizeF(2 * r, 2 * r));
    for (qkv::Index j = 0; j < p.keys.rows(); ++j)
        markers.emplace_back(g.frame.map(p.keys(j, 0), p.keys(j, 1)) - QPointF(r, r), QSizeF(2 * r, 2 * r));
    labels.placement = placeQkLabels(candidates, g.plot, kQkMapMarker, metrics, markers);
    if (labels.placement.hidden == 0) return labels;
    // Again, with room kept for the note that counts the hidden labels (top right of the plot).
    // The note in full when the plot is wide enough for it with the most digits, else short.
    const double room = g.plot.width() - 4;
    const auto note = [](int hidden, bool full) {
        if (full)
            return hidden == 1 ? Text::tr("1 label hidden · hover a point for its token")
                               : Text::tr("%1 labels hidden · hover a point for its token").arg(hidden);
        return hidden == 1 ? Text::tr("1 label hidden (hover)") : Text::tr("%1 labels hidden (hover)").arg(hidden);
    };
    const int most = static_cast<int>(candidates.size());
    const bool full = metrics.horizontalAdvance(note(most, true)) + 6 <= room;
    const double width = std::min(room, metrics.horizontalAdvance(note(most, full)) + 6);
    labels.noteRect = QRectF(g.plot.right() - width - 2, g.plot.top() + 2, width, metrics.height());
    markers.push_back(labels.noteRect);
    labels.placement = placeQkLabels(candidates, g.plot, kQkMapMarker, metrics, markers);
    labels.note = note(labels.placement.hidden, full);
    return labels;
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
    const double legend = withLegend && model.result ? qkLegendHeight(model, area.width(), metrics) : 0;
    g.legend = QRectF(area.left(), area.bottom() - legend, area.width(), legend);
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
