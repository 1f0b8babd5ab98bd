// The charts are Qt Charts (docs/architecture.md, "Layers"): renderChart draws the same chart as the
// screen's ChartView, with whole titles and legend names and readable ticks at small sizes,
// and the screen adds legend entries that hide and show their series.

#include <gtest/gtest.h>

#include <QAbstractBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QImage>
#include <QLegend>
#include <QLegendMarker>
#include <QPainter>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

#include "tests/ui/support/text_probe.hpp"
#include "tests/ui/support/wait_until.hpp"
#include "ui/figure_widgets/chart_view.hpp"
#include "ui/figures/figure.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/render/chart_builder.hpp"
#include "ui/render/chart_render.hpp"

namespace qkv::ui {
namespace {

using testing::TextProbe;

ChartModel barModel()
{
    ChartModel m;
    m.title = QStringLiteral("Score-path parameters (g = h) of a layer with twelve heads");
    m.categories = {QStringLiteral("per head"), QStringLiteral("per layer (h = 12 heads)")};
    m.y.title = QStringLiteral("parameters");
    ChartSeries a = ChartSeries::of(QStringLiteral("factored W_i^Q and W_i^K: 2 · d_model · d_k per head"), Qt::blue,
                                    ChartSeries::Kind::Bars);
    a.values = {12288, 147456};
    ChartSeries b =
        ChartSeries::of(QStringLiteral("one full W_i per head: d_model² per head"), Qt::red, ChartSeries::Kind::Bars);
    b.values = {589824, 7077888};
    m.series = {a, b};
    return m;
}

ChartModel logModel()
{
    ChartModel m;
    m.title = QStringLiteral("Singular values");
    m.x.title = QStringLiteral("index k of σ_k");
    m.y.title = QStringLiteral("σ_k (log scale)");
    m.y.logarithmic = true;
    m.x.minimum = 0;
    m.x.maximum = 65;
    m.y.minimum = 1e-17;
    m.y.maximum = 10;
    ChartSeries values = ChartSeries::of(QStringLiteral("σ_1 … σ_16"), Qt::blue, ChartSeries::Kind::Points);
    for (int k = 1; k <= 16; ++k) values.points.emplace_back(k, std::pow(10.0, -k));
    ChartSeries line = ChartSeries::of(QStringLiteral("rank tolerance"), Qt::red, ChartSeries::Kind::Line);
    line.points = {QPointF(0, 1e-13), QPointF(65, 1e-13)};
    m.series = {values, line};
    return m;
}

ChartStyle style() { return {Qt::black, Qt::white, figureFont()}; }

std::unique_ptr<TextProbe> probe(const ChartModel& model, QSize size)
{
    auto device = std::make_unique<TextProbe>(size);
    QPainter painter(device.get());
    renderChart(painter, QRectF(QPointF(0, 0), QSizeF(size)), model, style());
    return device;
}

void expectReadable(const TextProbe& device, const ChartModel& model)
{
    EXPECT_EQ(device.problems().join(QLatin1Char('\n')).toStdString(), "");
    // Greek letters may come from a fallback font, which splits a line into several drawn runs.
    const QString all = device.strings().join(QString()).remove(QLatin1Char(' '));
    const auto shows = [&](const QString& text) { return all.contains(QString(text).remove(QLatin1Char(' '))); };
    EXPECT_TRUE(shows(model.title)) << device.strings().join(" | ").toStdString();
    for (const ChartAxis* axis : {&model.x, &model.y}) {
        if (!axis->title.isEmpty()) {
            EXPECT_TRUE(shows(axis->title)) << axis->title.toStdString();
        }
    }
    for (const ChartSeries& s : model.series) EXPECT_TRUE(shows(s.name)) << s.name.toStdString();
    for (const QString& text : device.strings()) {
        EXPECT_FALSE(text.contains(QRegularExpression(QStringLiteral("\\de[+-]?\\d")))) << text.toStdString();
        EXPECT_FALSE(text.endsWith(QStringLiteral("..."))) << "Qt elided: " << text.toStdString();
    }
}

TEST(ChartRender, TitlesLegendAndTicksAreWholeAndReadableAtSmallSizes)
{
    // The bar chart (two long legend names, a long category) needs the score-path figure.s
    // smallest size; the
    // spectrum's short ones leave room down to a ChartView's minimum size.
    const struct {
        ChartModel model;
        QSize smallest;
    } charts[] = {{barModel(), QSize(460, 340)}, {logModel(), QSize(320, 240)}};
    for (const auto& chart : charts) {
        for (const QSize size : {chart.smallest, QSize(560, 360), QSize(1000, 700)}) {
            SCOPED_TRACE(size.width());
            const auto device = probe(chart.model, size);
            expectReadable(*device, chart.model);
        }
    }
    // The exact values at the bars' ends, grouped.
    EXPECT_TRUE(probe(barModel(), QSize(1000, 700))->strings().contains(QStringLiteral("7,077,888")));
    // Powers of ten on a log axis spanning 18 decades.
    EXPECT_TRUE(probe(logModel(), QSize(560, 360))->strings().join(QString()).contains(QStringLiteral("10⁻")));
}

// A long title wraps within the room the legend's margins leave it, at every width: the title
// was wrapped for the chart's first margins, before the legend set its own, so a line that fit
// the first could be wider than the final room, and Qt elided it ("...how many of 64 h...").
TEST(ChartRender, ALongTitleWrapsWithinTheFinalMarginsAtEveryWidth)
{
    ChartModel model = logModel();
    model.title = QStringLiteral(
        "Singular values of each learned full W_i (64 × 64); legend: how many of 64 hold 99% of the energy");
    for (int width = 320; width <= 900; width += 9) {
        SCOPED_TRACE(width);
        const auto device = probe(model, QSize(width, 360));
        EXPECT_EQ(device->problems().join(QLatin1Char('\n')).toStdString(), "");
        // Qt Charts truncates with three full stops, which TextProbe's "…" check does not see.
        for (const QString& drawn : device->strings())
            EXPECT_FALSE(drawn.endsWith(QLatin1String("..."))) << drawn.toStdString();
    }
}

// A short chart with a two-row legend keeps its tick labels: Qt gives the x axis at most 40% of
// what the title and the legend leave, and elided every label ("...") of the Train tab's spectrum
// at 1000 x 700 (about 410 x 200) while the legend kept 9 px of margin around its entries.
TEST(ChartRender, AShortChartWithATwoRowLegendKeepsItsTickLabels)
{
    ChartModel model = logModel();
    model.title = QStringLiteral("Each full W_i's σ_k; legend: rank at 99% energy");
    model.x.title = QStringLiteral("k (dashed: a factored W_i's rank bound)");
    model.y.title = QStringLiteral("σ_k (log)");
    model.y.minimum = 1e-4;
    model.series.clear();
    for (int head = 1; head <= 4; ++head) {
        ChartSeries line = ChartSeries::of(QStringLiteral("Head %1: 4%1").arg(head), Qt::blue, ChartSeries::Kind::Line);
        for (int k = 1; k <= 64; ++k) line.points.emplace_back(k, std::pow(10.0, -k / 20.0));
        model.series.push_back(line);
    }
    ChartSeries reference = ChartSeries::of(QStringLiteral("k = d_k = 16"), Qt::gray, ChartSeries::Kind::Line);
    reference.points = {QPointF(16, 1e-4), QPointF(16, 10)};
    model.series.push_back(reference);
    for (const QSize size : {QSize(410, 215), QSize(480, 215), QSize(410, 230)}) {
        SCOPED_TRACE(size.width() * 1000 + size.height());
        const auto device = probe(model, size);
        EXPECT_EQ(device->problems().join(QLatin1Char('\n')).toStdString(), "");
        const QStringList drawn = device->strings();
        for (const QString& text : drawn) EXPECT_FALSE(text.endsWith(QLatin1String("..."))) << text.toStdString();
        // Numbered ticks along k, not only the log axis's powers of ten.
        const auto numbers = std::count_if(drawn.begin(), drawn.end(), [](const QString& t) {
            bool ok = false;
            t.toInt(&ok);
            return ok;
        });
        EXPECT_GE(numbers, 3) << drawn.join(QLatin1Char('|')).toStdString();
    }
}

TEST(ChartRender, DrawsIntoAnImage)
{
    QImage image(560, 360, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        renderChart(painter, QRectF(0, 0, 560, 360), barModel(), style());
    }
    int coloured = 0;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            if (image.pixelColor(x, y) == QColor(Qt::red)) ++coloured;
    EXPECT_GT(coloured, 100);  // the red bars are there
}

// Lays `chart` out at `size` as renderChart does, for reading its parts.
void layOut(QGraphicsScene& scene, QChart* chart, QSizeF size)
{
    scene.addItem(chart);
    chart->setGeometry(QRectF(QPointF(0, 0), size));
}

TEST(ChartRender, AxisLabelsAreReadableNumbersOfTheirValues)
{
    QGraphicsScene scene;
    QChart* bars = buildChart(barModel(), style()).release();
    QChart* spectrum = buildChart(logModel(), style()).release();
    layOut(scene, bars, QSizeF(700, 500));
    layOut(scene, spectrum, QSizeF(700, 500));
    int checked = 0;
    for (QChart* chart : {bars, spectrum}) {
        const bool logarithmic = chart == spectrum;
        for (QAbstractAxis* abstract : chart->axes(Qt::Vertical)) {
            auto* axis = qobject_cast<QCategoryAxis*>(abstract);
            ASSERT_NE(axis, nullptr);
            ASSERT_GE(axis->categoriesLabels().size(), 3);
            for (const QString& label : axis->categoriesLabels()) {
                const double value = axis->endValue(label);
                const QString expected =
                    logarithmic ? powerOfTen(static_cast<int>(std::lround(value))) : readableNumber(value);
                EXPECT_EQ(label, expected);
                ++checked;
            }
        }
    }
    EXPECT_GE(checked, 6);
}

// A probability axis stops at 1 (it ran to 1.25 to make room for the label of a 98.9 % bar);
// that label goes inside its bar, readable on the bar's colour.
TEST(ChartRender, AnAxisWithACeilingStopsThereAndLabelsGoInsideTheBar)
{
    ChartModel m;
    m.title = QStringLiteral("Most likely next tokens");
    m.horizontalBars = true;
    m.categories = {QStringLiteral("«e»"), QStringLiteral("«h»")};
    m.x.title = QStringLiteral("probability");
    m.x.maximum = 1.0;
    m.x.ceiling = 1.0;
    ChartSeries p = ChartSeries::of(QStringLiteral("every head on"), QColor(0x21, 0x66, 0xac), ChartSeries::Kind::Bars);
    p.values = {0.004, 0.989};
    m.series = {p};
    QGraphicsScene scene;
    QChart* chart = buildChart(m, style()).release();
    layOut(scene, chart, QSizeF(600, 400));
    double axisMaximum = 0;
    for (QAbstractAxis* abstract : chart->axes(Qt::Horizontal))
        if (auto* axis = qobject_cast<QCategoryAxis*>(abstract)) axisMaximum = axis->max();
    EXPECT_EQ(axisMaximum, 1.0);
    QGraphicsSimpleTextItem* large = nullptr;
    QGraphicsSimpleTextItem* small = nullptr;
    for (QGraphicsItem* item : chart->childItems())
        if (auto* text = dynamic_cast<QGraphicsSimpleTextItem*>(item)) {
            if (text->text() == chartValueText(0.989)) large = text;
            if (text->text() == chartValueText(0.004)) small = text;
        }
    ASSERT_NE(large, nullptr);
    ASSERT_NE(small, nullptr);
    const QRectF plot = chart->plotArea();
    const QRectF inside = large->mapRectToParent(large->boundingRect());
    EXPECT_TRUE(large->isVisible());
    EXPECT_LE(inside.right(), plot.right() + 1);
    EXPECT_LT(inside.left(), chart->mapToPosition(QPointF(0.989, 1), chart->series().front()).x());
    EXPECT_EQ(large->brush().color(), QColor(Qt::white));  // on the dark blue bar
    EXPECT_EQ(small->brush().color(), style().text);       // beyond its short bar, as usual
    // Drawn over the bar, not under it: white pixels where the label is.
    QImage image(600, 400, QImage::Format_RGB32);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        scene.render(&painter, QRectF(0, 0, 600, 400), QRectF(0, 0, 600, 400));
    }
    int white = 0;
    const QRect box = inside.toAlignedRect().intersected(image.rect());
    for (int y = box.top(); y <= box.bottom(); ++y)
        for (int x = box.left(); x <= box.right(); ++x)
            if (qRed(image.pixel(x, y)) > 200 && qBlue(image.pixel(x, y)) > 200) ++white;
    EXPECT_GT(white, 10);
}

TEST(ChartRender, BarsAreTheModelsValues)
{
    const ChartModel model = barModel();
    auto chart = buildChart(model, style());
    auto* series = qobject_cast<QAbstractBarSeries*>(chart->series().front());
    ASSERT_NE(series, nullptr);
    ASSERT_EQ(series->count(), 2);
    for (int s = 0; s < 2; ++s) {
        const QBarSet* set = series->barSets()[s];
        EXPECT_EQ(set->label(), model.series[static_cast<std::size_t>(s)].name);
        for (int c = 0; c < set->count(); ++c)
            EXPECT_EQ(set->at(c), model.series[static_cast<std::size_t>(s)].values[static_cast<std::size_t>(c)]);
    }
    EXPECT_EQ(chartModelOf(chart.get())->title, model.title);
}

TEST(ChartRender, TextIsInTheStylesColour)
{
    const ChartStyle dark{QColor(220, 221, 222), QColor(30, 30, 30), figureFont()};
    auto chart = buildChart(logModel(), dark);
    EXPECT_EQ(chart->backgroundBrush().color(), dark.background);
    EXPECT_EQ(chart->titleBrush().color(), dark.text);
    EXPECT_EQ(chart->legend()->labelColor(), dark.text);
    for (QAbstractAxis* axis : chart->axes()) EXPECT_EQ(axis->labelsColor(), dark.text);
}

TEST(ChartView, LegendEntriesHideAndShowTheirSeries)
{
    for (const ChartModel& model : {barModel(), logModel()}) {
        ChartView view;
        view.resize(600, 400);
        view.setModel(model);
        view.show();
        const QString name = model.series.front().name;
        EXPECT_TRUE(view.seriesShown(name));
        QLegendMarker* marker = nullptr;
        for (QLegendMarker* m : view.chart()->legend()->markers())
            if (m->label().contains(name.left(8))) marker = m;
        ASSERT_NE(marker, nullptr) << name.toStdString();
        emit marker->clicked();
        EXPECT_FALSE(view.seriesShown(name));
        EXPECT_TRUE(marker->isVisible());  // still there to click again
        EXPECT_TRUE(view.seriesShown(model.series.back().name));
        emit marker->clicked();
        EXPECT_TRUE(view.seriesShown(name));
    }
}

TEST(ChartView, ZoomsAndResets)
{
    ChartView view;
    view.resize(600, 400);
    view.setModel(logModel());
    view.show();
    view.ensureBuilt();
    EXPECT_EQ(view.rubberBand(), QChartView::RectangleRubberBand);
    view.chart()->zoomIn(QRectF(view.chart()->plotArea().center(), QSizeF(80, 60)));
    EXPECT_TRUE(view.chart()->isZoomed());
    view.chart()->zoomReset();
    EXPECT_FALSE(view.chart()->isZoomed());
}

// An edit that leaves the chart's numbers as they were (another sentence of the same length)
// keeps what the user did to it; new numbers draw a new chart.
TEST(ChartView, TheSameModelAgainKeepsTheZoom)
{
    ChartView view;
    view.resize(600, 400);
    view.setModel(logModel());
    view.show();
    view.ensureBuilt();
    view.chart()->zoomIn(QRectF(view.chart()->plotArea().center(), QSizeF(80, 60)));
    view.setModel(logModel());
    EXPECT_TRUE(view.isBuilt());
    EXPECT_TRUE(view.chart()->isZoomed());
    ChartModel other = logModel();
    other.title += QStringLiteral(" (other)");
    view.setModel(other);
    ASSERT_TRUE(testing::waitUntil([&] { return view.isBuilt(); }));
    EXPECT_FALSE(view.chart()->isZoomed());
}

const ChartModel* drawnModel(const ChartView& view) { return chartModelOf(view.chart()); }

// A new model is drawn in a later turn of the event loop, one chart per turn, so that a tab of
// several charts never holds the GUI thread for all of them at once; a hidden chart waits until
// it is shown.
TEST(ChartView, ANewModelIsDrawnInATurnOfItsOwn)
{
    ChartView first, second, hidden;
    for (ChartView* view : {&first, &second}) {
        view->resize(600, 400);
        view->show();
    }
    ASSERT_TRUE(testing::waitUntil([] { return !ChartView::buildsPending(); }));
    ChartModel other = logModel();
    other.title += QStringLiteral(" (other)");
    first.setModel(logModel());
    second.setModel(other);
    hidden.setModel(barModel());
    EXPECT_EQ(first.model(), logModel());  // the model is current at once
    EXPECT_FALSE(first.isBuilt());
    EXPECT_TRUE(ChartView::buildsPending());

    // One turn (one pass of the event loop) builds one of them.
    while (first.isBuilt() == false && second.isBuilt() == false) QCoreApplication::processEvents();
    EXPECT_NE(first.isBuilt(), second.isBuilt());
    ASSERT_TRUE(testing::waitUntil([] { return !ChartView::buildsPending(); }));
    ASSERT_NE(drawnModel(first), nullptr);
    EXPECT_EQ(*drawnModel(first), logModel());
    EXPECT_EQ(*drawnModel(second), other);

    QCoreApplication::processEvents();
    EXPECT_FALSE(hidden.isBuilt());  // nobody sees it: not built
    hidden.resize(600, 400);
    hidden.show();
    ASSERT_TRUE(testing::waitUntil([&] { return hidden.isBuilt(); }));
    EXPECT_EQ(*drawnModel(hidden), barModel());
}

// Asking what is drawn, or for the chart, after a new model answers for the new model.
TEST(ChartView, AQuestionAboutTheDrawingBuildsItFirst)
{
    ChartView view;
    view.resize(600, 400);
    view.show();
    view.setModel(barModel());
    EXPECT_TRUE(view.seriesShown(barModel().series.front().name));
    EXPECT_TRUE(view.isBuilt());
}

}  // namespace
}  // namespace qkv::ui
