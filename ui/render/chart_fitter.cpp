#include "ui/render/chart_fitter.hpp"

#include <QAbstractBarSeries>
#include <QBarCategoryAxis>
#include <QBarLegendMarker>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>

#include <algorithm>
#include <cmath>

#include "ui/figures/text_layout.hpp"
#include "ui/render/chart_axes.hpp"
#include "ui/render/color_legend.hpp"
#include "ui/render/contrast.hpp"

namespace qkv::ui {
namespace {

constexpr double kPad = 6.0;
// Qt Charts keeps this much around every text item (its document margin and label padding on
// both sides).
constexpr double kQtTextSlack = 20.0;

QString seriesName(QLegendMarker* marker)
{
    if (auto* bar = qobject_cast<QBarLegendMarker*>(marker)) return bar->barset()->label();
    return marker->series()->name();
}

}  // namespace

QString wrappedChartText(const QString& text, const QFont& font, double width)
{
    const QFontMetricsF metrics(font);
    QStringList lines;
    QString line;
    for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QString candidate = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        if (!line.isEmpty() && metrics.horizontalAdvance(candidate) > width) {
            lines << line.toHtmlEscaped();
            line = word;
        } else {
            line = candidate;
        }
    }
    if (!line.isEmpty()) lines << line.toHtmlEscaped();
    return lines.join(QStringLiteral("<br>"));
}

ChartFitter::ChartFitter(QChart* chart, ChartModel model, ChartStyle style, Parts parts)
    : QObject(chart), chart_(chart), model_(std::move(model)), style_(std::move(style)), parts_(std::move(parts))
{
    if (parts_.categories) categoryLabels_ = parts_.categories->categories();
    connect(chart_, &QGraphicsWidget::geometryChanged, this, &ChartFitter::fit);
    connect(chart_, &QChart::plotAreaChanged, this, &ChartFitter::fitPlot);
    for (QCategoryAxis* axis : {parts_.x, parts_.y})
        if (axis) connect(axis, &QValueAxis::rangeChanged, this, &ChartFitter::fitPlot);
}

double ChartFitter::lineHeight() const { return QFontMetricsF(style_.font).height(); }

void ChartFitter::fit()
{
    if (fitting_ || chart_->size().isEmpty()) return;
    fitting_ = true;
    layoutLegend();  // first: it sets the margins the title is wrapped within
    wrapTitle();
    chart_->layout()->activate();
    fitting_ = false;
    fitPlot();
}

void ChartFitter::wrapTitle()
{
    const QMarginsF margins = chart_->margins();
    const double width = chart_->size().width() - margins.left() - margins.right() - kQtTextSlack;
    const QString lines = wrappedChartText(model_.title, figureTitleFont(style_.font), width);
    const QString html =
        lines.contains(QLatin1String("<br>")) ? QStringLiteral("<div align=\"center\">%1</div>").arg(lines) : lines;
    if (chart_->title() != html) chart_->setTitle(html);
}

// Qt's detached legend stacks its entries in columns as high as the legend and starts a new
// column when one is full; the legend's height decides how many columns there are. The fewest
// rows whose columns fit the width, names wrapped where one alone is wider than the chart.
void ChartFitter::layoutLegend()
{
    QLegend* legend = chart_->legend();
    legend->setAlignment(Qt::AlignLeft);
    const QFontMetricsF metrics(style_.font);
    const double width = chart_->size().width() - 8;
    std::vector<QLegendMarker*> markers;
    for (QLegendMarker* m : legend->markers())
        if (m->isVisible()) markers.push_back(m);
    // Qt centres the last tick's label on the plot's right edge: half a label of room there.
    QMarginsF margins(4, 4, std::ceil(metrics.horizontalAdvance(QStringLiteral("100.0k")) / 2 + 4), 4);
    if (markers.empty()) {
        legend->setVisible(false);
        chart_->setMargins(margins.toMargins());
        return;
    }
    // An entry: the marker, a space, the name, Qt's margins (measured once from the hint).
    const double overhead = 3 * metrics.height();
    std::vector<double> widths;
    for (QLegendMarker* m : markers) {
        const QString name = seriesName(m);
        const QString label = metrics.horizontalAdvance(name) + overhead > width
                                  ? wrappedChartText(name, style_.font, width - overhead)
                                  : name.toHtmlEscaped();
        if (m->label() != label) m->setLabel(label);
        double widest = 0;
        for (const QString& line : label.split(QStringLiteral("<br>")))
            widest = std::max(widest, metrics.horizontalAdvance(line));
        widths.push_back(widest + overhead);
    }
    qreal left = 0, top = 0, right = 0, bottom = 0;
    legend->layout()->getContentsMargins(&left, &top, &right, &bottom);
    const double itemHeight = legend->effectiveSizeHint(Qt::PreferredSize).height() - top - bottom;
    const std::size_t n = markers.size();
    std::size_t rows = 1;
    double used = 0;
    for (; rows <= n; ++rows) {
        used = 0;
        for (std::size_t first = 0; first < n; first += rows)
            used += *std::max_element(widths.begin() + first, widths.begin() + std::min(n, first + rows));
        if (used <= width - left - right) break;
    }
    rows = std::min(rows, n);
    const double height = rows * itemHeight + top + 2 * bottom + 1;
    const QSizeF size = chart_->size();
    legend->setGeometry(QRectF(std::max(4.0, (size.width() - used) / 2 - left), size.height() - 4 - height,
                               std::min(used + left + right + 2, size.width() - 8), height));
    legend->setVisible(true);
    margins.setBottom(height + 6);
    chart_->setMargins(margins.toMargins());
}

void ChartFitter::fitPlot()
{
    if (fitting_ || chart_->plotArea().isEmpty()) return;
    fitting_ = true;
    // New labels change the room the axes take, hence the plot: until it settles.
    for (int pass = 0; pass < 3; ++pass) {
        const QRectF before = chart_->plotArea();
        wrapCategories();
        wrapVerticalTitle();
        fitBarAxis();
        if (parts_.x) retick(parts_.x, model_.x, true);
        if (parts_.y) retick(parts_.y, model_.y, false);
        // Qt would lay the new labels out on its next event loop pass: now, so that a render
        // right after a resize draws them.
        chart_->layout()->invalidate();
        chart_->layout()->activate();
        if (chart_->plotArea() == before) break;
    }
    placeBarLabels();
    fitting_ = false;
}

// Category names wrapped to their share of the axis (Qt would elide them).
void ChartFitter::wrapCategories()
{
    if (!parts_.categories) return;
    const qsizetype n = model_.categories.size();
    // Qt elides a label of a horizontal category axis well before the category's width (at
    // about the plot's width over n + 2, measured at n = 2 on screen): wrap within that.
    const double width = model_.horizontalBars ? chart_->size().width() * 0.38
                                               : chart_->plotArea().width() / static_cast<double>(n + 2) - kQtTextSlack;
    QStringList labels;
    for (const QString& category : model_.categories)
        labels << wrappedChartText(category, style_.font, std::max(width, 40.0));
    if (labels == categoryLabels_ || labels.removeDuplicates() > 0) return;
    parts_.categories->setCategories(labels);
    categoryLabels_ = labels;
    // Qt keeps the axis's size for the old labels until its font changes: make it measure anew.
    const QFont font = parts_.categories->labelsFont();
    QFont other = font;
    other.setStretch(font.stretch() + 1);
    parts_.categories->setLabelsFont(other);
    parts_.categories->setLabelsFont(font);
}

// Qt elides a vertical axis's title beyond the plot's height: it wraps into rotated lines.
void ChartFitter::wrapVerticalTitle()
{
    QAbstractAxis* axis = model_.horizontalBars ? static_cast<QAbstractAxis*>(parts_.categories) : parts_.y;
    if (!axis || model_.y.title.isEmpty()) return;
    const QString title = wrappedChartText(model_.y.title, style_.font, chart_->plotArea().height() - kQtTextSlack);
    if (axis->titleText() != title) axis->setTitleText(title);
}

// The value axis of a bar chart, from 0 to a round number beyond the longest bar with room for
// its label. A zoom on screen keeps the range it chose.
void ChartFitter::fitBarAxis()
{
    if (!parts_.bars || chart_->isZoomed()) return;
    QCategoryAxis* axis = model_.horizontalBars ? parts_.x : parts_.y;
    const ChartAxis& values = model_.horizontalBars ? model_.x : model_.y;
    double largest = 0, labelPixels = lineHeight() + 4;
    const QFontMetricsF metrics(style_.font);
    for (std::size_t b = 0; b < parts_.barLabels.size(); ++b)
        for (QGraphicsSimpleTextItem* label : parts_.barLabels[b]) {
            if (model_.horizontalBars)
                labelPixels = std::max(labelPixels, metrics.horizontalAdvance(label->text()) + kPad);
        }
    for (const ChartSeries& s : model_.series)
        for (double v : s.values) largest = std::max(largest, v);
    const double pixels = model_.horizontalBars ? chart_->plotArea().width() : chart_->plotArea().height();
    double maximum = std::max({values.maximum, largest, 1.0});
    if (model_.barValueLabels && pixels > labelPixels + 10)
        maximum = std::max(maximum, largest * pixels / (pixels - labelPixels));
    const std::vector<double> ticks = niceTicks(0, maximum, 6);
    if (ticks.size() > 1 && ticks.back() < maximum) maximum = ticks.back() + (ticks[1] - ticks[0]);
    if (maximum > values.ceiling) maximum = std::max(values.ceiling, largest);  // labels go inside the bars
    if (axis->min() != 0 || axis->max() != maximum) axis->setRange(0, maximum);
}

void ChartFitter::retick(QCategoryAxis* axis, const ChartAxis& model, bool horizontal)
{
    const QFontMetricsF metrics(style_.font);
    const double pixels = horizontal ? chart_->plotArea().width() : chart_->plotArea().height();
    const double span = axis->max() - axis->min();
    if (pixels <= 0 || span <= 0) return;
    const double spacing = horizontal ? metrics.horizontalAdvance(QStringLiteral("000.0k")) * 1.6 : 2.5 * lineHeight();
    const AxisTicks all =
        readableTicks(model, axis->min(), axis->max(), std::max(2, static_cast<int>(pixels / spacing)));
    const auto extent = [&](const QString& label) {
        return horizontal ? metrics.horizontalAdvance(label) : lineHeight();
    };
    AxisTicks ticks = thinnedTicks(all, pixels / span, kPad, extent);
    // Qt gives each label of a horizontal axis an equal share of the width, eliding beyond it.
    const auto widest = [&] {
        double w = 0;
        for (const QString& l : ticks.labels) w = std::max(w, extent(l));
        return w;
    };
    while (horizontal && ticks.positions.size() > 2 && pixels / ticks.positions.size() - kQtTextSlack < widest()) {
        AxisTicks half;
        for (std::size_t i = 0; i < ticks.positions.size(); i += 2) {
            half.positions.push_back(ticks.positions[i]);
            half.labels << ticks.labels[static_cast<qsizetype>(i)];
        }
        ticks = half;
    }
    if (axis->categoriesLabels() == ticks.labels) return;
    setAxisTicks(axis, ticks);
}

void ChartFitter::placeBarLabels()
{
    if (!parts_.bars) return;
    const QList<QBarSet*> sets = parts_.bars->barSets();
    const double setCount = static_cast<double>(std::max<qsizetype>(1, sets.size()));
    const double barWidth = parts_.bars->barWidth();
    const QRectF plot = chart_->plotArea();
    for (std::size_t b = 0; b < parts_.barLabels.size() && b < static_cast<std::size_t>(sets.size()); ++b) {
        QBarSet* set = sets[static_cast<qsizetype>(b)];
        for (std::size_t c = 0; c < parts_.barLabels[b].size(); ++c) {
            QGraphicsSimpleTextItem* label = parts_.barLabels[b][c];
            // Where Qt puts bar b of category c: the sets side by side across barWidth.
            const double across =
                static_cast<double>(c) - barWidth / 2 + (static_cast<double>(b) + 0.5) * barWidth / setCount;
            const double value = set->at(static_cast<qsizetype>(c));
            const QPointF end = chart_->mapToPosition(
                model_.horizontalBars ? QPointF(value, across) : QPointF(across, value), parts_.bars);
            const QRectF box = label->boundingRect();
            QPointF at = model_.horizontalBars ? QPointF(end.x() + 3, end.y() - box.height() / 2)
                                               : QPointF(end.x() - box.width() / 2, end.y() - box.height() - 1);
            // No room beyond the bar (its axis stops at a ceiling): inside the bar's end, in a
            // colour that reads on the bar.
            const bool within = model_.horizontalBars ? at.x() + box.width() <= plot.right() + 1 : at.y() >= plot.top() - 1;
            if (!within) at = model_.horizontalBars ? QPointF(end.x() - 3 - box.width(), at.y()) : QPointF(at.x(), end.y() + 1);
            label->setBrush(within ? style_.text : readableOn(set->color()));
            label->setPos(at);
            const bool inside =
                plot.adjusted(-1, -box.height() - 2, box.width() + 1, 1).contains(QRectF(at, box.size()));
            label->setVisible(model_.barValueLabels && set->color().alpha() > 0 && inside);
        }
    }
}

}  // namespace qkv::ui
