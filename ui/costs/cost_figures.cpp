#include "ui/costs/cost_figures.hpp"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "core/cost/cost_model.hpp"
#include "core/weights/attention_weights.hpp"
#include "ui/figures/text_layout.hpp"
#include "ui/render/chart_render.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::CostFigures)
};

QColor factoredColor() { return {0x21, 0x66, 0xac}; }  // blue: the thin factors
QColor fullColor() { return {0xb2, 0x18, 0x2b}; }      // red: a full W_i

ChartSeries bars(const QString& name, const QColor& color, std::vector<double> values)
{
    ChartSeries s = ChartSeries::of(name, color, ChartSeries::Kind::Bars);
    s.values = std::move(values);
    return s;
}

double count(Count c) { return static_cast<double>(c); }

}  // namespace

CostShape costShape(const qkv::Result& result, Count keyValueHeads)
{
    CostShape shape;
    shape.d_model = result.weights->d_model();
    shape.heads = result.config.headCount;
    shape.headWidth = result.attention.d_k();  // the heads' own width, d_model / h unless set
    shape.n_q = result.queryInput.rows();
    shape.n_k = result.keyValueInput.rows();
    shape.withBias = result.weights->hasBias();
    const bool divides = keyValueHeads >= 1 && shape.heads >= 1 && shape.heads % keyValueHeads == 0;
    shape.keyValueHeads = divides ? keyValueHeads : shape.heads;
    return shape;
}

QString costSummary(const CostShape& shape)
{
    return Text::tr("d_model = %1, h = %2, d_k = %3, n_q = %4, n_k = %5%6: what two thin matrices per head save")
        .arg(shape.d_model)
        .arg(shape.heads)
        .arg(shape.d_k())
        .arg(shape.n_q)
        .arg(shape.n_k)
        .arg(shape.withBias ? Text::tr(", with biases") : QString());
}

ChartModel scorePathChart(const CostShape& shape)
{
    const ScorePathComparison c = compareScorePath(shape.d_model, shape.heads, shape.heads, shape.d_k());
    ChartModel m;
    m.title = Text::tr("Score-path parameters (g = h)");
    m.categories = {Text::tr("per head"), Text::tr("per layer (h = %1 heads)").arg(shape.heads)};
    m.y.title = Text::tr("parameters");
    m.series = {bars(Text::tr("factored W_i^Q and W_i^K: 2 · d_model · d_k per head"), factoredColor(),
                     {count(c.factored.parametersPerHead), count(c.factored.parametersPerLayer)}),
                bars(Text::tr("one full W_i per head: d_model² per head"), fullColor(),
                     {count(c.full.parametersPerHead), count(c.full.parametersPerLayer)})};
    return m;
}

ChartModel layerParametersChart(const CostShape& shape)
{
    struct Kind {
        QString name;
        HeadLayout layout;
        Count g;
    };
    const Count h = shape.heads, g = shape.keyValueHeads;
    // Bottom to top: the standard layer last, so it is on top.
    const std::vector<Kind> kinds = {
        {Text::tr("grouped-query (g = %1)").arg(g), HeadLayout::Factored, g},
        {Text::tr("multi-query (g = 1)"), HeadLayout::Factored, 1},
        {Text::tr("unreduced heads (d_k = d_model)"), HeadLayout::Unreduced, h},
        {Text::tr("a full W_i per head"), HeadLayout::FullBilinear, h},
        {Text::tr("standard multi-head (g = h)"), HeadLayout::Factored, h},
    };
    ChartModel m;
    m.title = Text::tr("Whole-layer parameters (W^Q, W^K, W^V, W^O)");
    m.horizontalBars = true;
    m.x.title = Text::tr("parameters");
    std::vector<double> without, with;
    for (const Kind& kind : kinds) {
        m.categories << kind.name;
        without.push_back(count(layerParameterCount(shape.layer(kind.layout, kind.g, false))));
        with.push_back(count(layerParameterCount(shape.layer(kind.layout, kind.g, true))));
    }
    m.series = {bars(Text::tr("without biases"), QColor(0x43, 0x93, 0xc3), without),
                bars(Text::tr("with biases"), QColor(0xf4, 0xa5, 0x82), with)};
    return m;
}

ChartModel totalsChart(const CostShape& shape)
{
    ChartModel m;
    m.title = Text::tr("Layer parameters against h (the divisors of d_model = %1)").arg(shape.d_model);
    m.x.title = Text::tr("heads h (log scale)");
    m.y.title = Text::tr("parameters (log scale)");
    m.x.logarithmic = m.y.logarithmic = true;
    const std::vector<std::pair<QString, QColor>> layouts = {
        {Text::tr("standard multi-head"), QColor(0x1b, 0x9e, 0x77)},
        {Text::tr("multi-query (g = 1)"), QColor(0x75, 0x70, 0xb3)},
        {Text::tr("a full W_i per head"), fullColor()},
        {Text::tr("unreduced heads (d_k = d_model)"), QColor(0xd9, 0x5f, 0x02)},
        {Text::tr("score path, factored W_i^Q, W_i^K"), factoredColor()},
        {Text::tr("score path, a full W_i per head"), QColor(0xe7, 0x29, 0x8a)},
    };
    for (std::size_t i = 0; i < layouts.size(); ++i) {
        ChartSeries s = ChartSeries::of(layouts[i].first, layouts[i].second, ChartSeries::Kind::Line);
        if (i >= 4) s.lineStyle = Qt::DashLine;
        m.series.push_back(s);
    }
    ChartSeries current =
        ChartSeries::of(shape.heads * shape.d_k() == shape.d_model
                            ? Text::tr("the current h = %1").arg(shape.heads)
                            : Text::tr("the current h = %1, d_k = %2").arg(shape.heads).arg(shape.d_k()),
                        Qt::black, ChartSeries::Kind::Points);
    current.marker = ChartSeries::Marker::Ring;
    current.markerSize = 13.0;
    double smallest = 0, largest = 1;
    for (const HeadCountTotals& t : totalsOverHeadCounts(shape.d_model, shape.withBias)) {
        const double h = count(t.heads);
        const Count values[] = {t.standard,  t.multiQuery,        t.fullBilinear,
                                t.unreduced, t.scorePathFactored, t.scorePathFull};
        for (std::size_t i = 0; i < 6; ++i) {
            m.series[i].points.emplace_back(h, count(values[i]));
            smallest = smallest == 0 ? count(values[i]) : std::min(smallest, count(values[i]));
            largest = std::max(largest, count(values[i]));
        }
        m.x.ticks.push_back(h);
    }
    // The current layer as it is: with d_k set, h need not divide d_model and its count is
    // d_model (2 h + 2 g) d_k, off the d_k = d_model / h curve.
    const Count currentCount = layerParameterCount(shape.layer(HeadLayout::Factored, shape.heads, shape.withBias));
    current.points.emplace_back(count(shape.heads), count(currentCount));
    largest = std::max(largest, count(currentCount));
    m.series.push_back(current);
    m.x.minimum = 0.8;
    m.x.maximum = count(std::max<Count>(shape.d_model, 2)) * 1.25;
    m.y.minimum = std::pow(10.0, std::floor(std::log10(std::max(smallest, 1.0))));
    m.y.maximum = std::pow(10.0, std::ceil(std::log10(largest) + 0.05));
    return m;
}

ChartModel scoreFlopChart(const CostShape& shape)
{
    const ScoreFlops factored = scoreFlopsFactored(shape.n_q, shape.n_k, shape.d_model, shape.d_k());
    const ScoreFlops full = scoreFlopsFullBilinear(shape.n_q, shape.n_k, shape.d_model);
    ChartModel m;
    m.title = Text::tr("FLOPs of one head's scores (n_q = %1, n_k = %2)").arg(shape.n_q).arg(shape.n_k);
    m.horizontalBars = true;
    m.x.title = Text::tr("FLOPs (a multiply-add counts 2)");
    // Bottom-up: the total at the bottom, the X_q side on top.
    m.categories = {Text::tr("total"), Text::tr("n_q × n_k product"), Text::tr("X_kv projection"),
                    Text::tr("X_q projection")};
    m.series = {
        bars(Text::tr("factored: (X_q W_i^Q)(X_kv W_i^K)ᵀ"), factoredColor(),
             {count(factored.total()), count(factored.product), count(factored.keyProjection),
              count(factored.queryProjection)}),
        bars(Text::tr("through a full W_i: (X_q W_i) X_kvᵀ"), fullColor(),
             {count(full.total()), count(full.product), count(full.keyProjection), count(full.queryProjection)})};
    return m;
}

void paintCostsOverview(QPainter& painter, const QRectF& target, const CostShape& shape,
                             const ChartStyle& style)
{
    const QFont base = painter.font();
    const QFont bold = figureTitleFont(base);
    const QString summary = costSummary(shape);
    const double height = wrappedTextRect(QFontMetricsF(bold, painter.device()), target.width(), summary).height();
    painter.setPen(style.text);
    painter.setFont(bold);
    painter.drawText(QRectF(target.left(), target.top(), target.width(), height), Qt::TextWordWrap | Qt::AlignLeft,
                     summary);
    painter.setFont(base);
    const QRectF grid = target.adjusted(0, height + 12, 0, 0);
    const double w = grid.width() / 2, h = grid.height() / 2;
    const ChartModel charts[] = {scorePathChart(shape), layerParametersChart(shape), totalsChart(shape),
                                 scoreFlopChart(shape)};
    for (int i = 0; i < 4; ++i) {
        const QRectF cell(grid.left() + (i % 2) * w, grid.top() + (i / 2) * h, w, h);
        renderChart(painter, cell.adjusted(10, 10, -10, -10), charts[i], style);
    }
}

namespace {

CostShape shapeFor(const FigureInput& input)
{
    return costShape(*input.result, input.options.keyValueHeads);
}

ChartStyle styleFor(const QPainter& painter, const FigureInput& input)
{
    return {input.options.text, input.options.background, painter.font()};
}

template <ChartModel (*Build)(const CostShape&)>
void paintOne(QPainter& painter, const QRectF& rect, const FigureInput& input)
{
    renderChart(painter, rect.adjusted(12, 12, -12, -12), Build(shapeFor(input)), styleFor(painter, input));
}

void paintOverview(QPainter& painter, const QRectF& rect, const FigureInput& input)
{
    paintCostsOverview(painter, rect.adjusted(12, 12, -12, -12), shapeFor(input), styleFor(painter, input));
}

QString unavailable(const FigureInput& input)
{
    return shapeFor(input).valid() ? QString() : Text::tr("the layer has no heads");
}

}  // namespace

std::vector<Figure> costFigures()
{
    const QString view = kCostsViewId;
    return {
        Figure{QStringLiteral("comparison"), Text::tr("Comparison: all four charts"), view, QSizeF(1500, 1000),
               QSizeF(1100, 760), &unavailable, &paintOverview},
        Figure{QStringLiteral("score-path"), Text::tr("Score-path parameters"), view, QSizeF(800, 560),
               QSizeF(460, 340), &unavailable, &paintOne<&scorePathChart>},
        Figure{QStringLiteral("layer-parameters"), Text::tr("Whole-layer parameters"), view, QSizeF(900, 560),
               QSizeF(560, 360), &unavailable, &paintOne<&layerParametersChart>},
        Figure{QStringLiteral("parameters-vs-h"), Text::tr("Parameters against h"), view, QSizeF(900, 600),
               QSizeF(560, 400), &unavailable, &paintOne<&totalsChart>},
        Figure{QStringLiteral("score-flops"), Text::tr("Score FLOPs"), view, QSizeF(900, 560), QSizeF(560, 360),
               &unavailable, &paintOne<&scoreFlopChart>},
    };
}

}  // namespace qkv::ui
