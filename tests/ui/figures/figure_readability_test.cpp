// Every figure is readable at the common window sizes: no string
// is clipped, cut short ("…") or drawn outside the page, and the words that matter (titles,
// axis titles, colour bars, legend names) are there in full.

#include <gtest/gtest.h>

#include <QPainter>
#include <QRegularExpression>

#include "tests/ui/figures/figure_test_support.hpp"
#include "tests/ui/support/text_probe.hpp"
#include "ui/figure_registry/figure_registry.hpp"
#include "ui/figures/figure_render.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/render/chart_model.hpp"

#include "ui/costs/cost_figures.hpp"

namespace qkv::ui {
namespace {

using testing::figureInput;
using testing::figureInputFor;
using testing::TextProbe;

std::unique_ptr<TextProbe> probe(const Figure& figure, const FigureInput& input, QSize size)
{
    auto device = std::make_unique<TextProbe>(size);
    QPainter painter(device.get());
    paintFigure(painter, figure, QRectF(QPointF(0, 0), QSizeF(size)), input);
    return device;
}

TEST(FigureReadability, TheProbeSeesCutText)
{
    TextProbe device(QSize(200, 100));
    {
        QPainter painter(&device);
        const QFontMetricsF metrics(painter.font(), &device);
        painter.drawText(QRectF(0, 0, 40, 20), Qt::AlignLeft, QStringLiteral("a title far too long"));  // clipped
        painter.drawText(QPointF(10, 50),
                         metrics.elidedText(QStringLiteral("queries: target sentence"), Qt::ElideRight, 60));
        painter.drawText(QPointF(180, 90), QStringLiteral("outside"));
        painter.drawText(QPointF(10, 80), QStringLiteral("whole"));
    }
    EXPECT_EQ(device.problems().size(), 3) << device.problems().join(QStringLiteral(" | ")).toStdString();
    EXPECT_TRUE(device.shows(QStringLiteral("whole")));
}

TEST(FigureReadability, NoStringIsCutAtCommonSizes)
{
    for (const qkv::AttentionMode mode :
         {qkv::AttentionMode::Cross, qkv::AttentionMode::EncoderSelf, qkv::AttentionMode::DecoderCausal}) {
        for (const Figure& figure : allFigures()) {
            const FigureInput input = figureInputFor(figure.name.toStdString(), mode);
            for (const QSize size :
                 {QSize(1000, 700), QSize(1400, 900), QSize(1920, 1080), figure.defaultSize.toSize()}) {
                const auto device = probe(figure, input, size);
                EXPECT_FALSE(device->texts().empty()) << figure.name.toStdString();
                EXPECT_EQ(device->problems().join(QLatin1Char('\n')).toStdString(), "")
                    << figure.name.toStdString() << " at " << size.width() << " x " << size.height();
            }
        }
    }
}

TEST(FigureReadability, HeatmapsNameTheirAxesAndColourBar)
{
    for (const qkv::AttentionMode mode :
         {qkv::AttentionMode::Cross, qkv::AttentionMode::EncoderSelf, qkv::AttentionMode::DecoderCausal}) {
        const FigureInput input = figureInput(mode);
        for (const char* name : {"heads", "head"}) {
            const auto device = probe(*findFigure(QString::fromLatin1(name)), input, QSize(1000, 700));
            EXPECT_TRUE(device->shows(queryAxisTitle(mode)))
                << name << ": " << device->strings().join(" | ").toStdString();
            EXPECT_TRUE(device->shows(keyAxisTitle(mode))) << name;
            EXPECT_TRUE(device->shows(modeTitle(mode))) << name;
            EXPECT_TRUE(device->shows(QStringLiteral("d_model = 64, h = 4, d_k = 16"))) << name;
            EXPECT_TRUE(device->shows(QStringLiteral("attention weight (automatic scale: 0 to the 99th percentile")))
                << name << ": " << device->strings().join(" | ").toStdString();
        }
    }
    EXPECT_EQ(queryAxisTitle(qkv::AttentionMode::Cross), QStringLiteral("queries: target sentence"));
    EXPECT_EQ(keyAxisTitle(qkv::AttentionMode::Cross), QStringLiteral("keys and values: source sentence"));
}

TEST(FigureReadability, HeadTitlesAndNoSelectionMarksUnlessAsked)
{
    FigureInput input = figureInput();
    input.options.headTitles = {QStringLiteral("Head 1 · same meaning"), QStringLiteral("Head 2 · previous token"),
                                QStringLiteral("Head 3 · random"), QStringLiteral("Head 4 · low rank")};
    const auto device = probe(*findFigure(QStringLiteral("heads")), input, QSize(1000, 700));
    for (const QString& title : input.options.headTitles) EXPECT_TRUE(device->shows(title)) << title.toStdString();
    EXPECT_EQ(device->problems().join(QLatin1Char('\n')).toStdString(), "");

    // The selected head's frame and cell box are screen marks: a file has none unless asked.
    const Figure& heads = *findFigure(QStringLiteral("heads"));
    const auto render = [&](bool selection) {
        FigureInput in = figureInput();
        in.options.showSelection = selection;
        return figureImage(heads, in, ExportSize{QSizeF(1000, 700), 1.0});
    };
    const QImage plain = render(false), marked = render(true);
    EXPECT_NE(plain, marked);
    EXPECT_EQ(plain, figureImage(heads, figureInput(), ExportSize{QSizeF(1000, 700), 1.0}));
}

TEST(FigureReadability, ChartsShowFullLegendNamesAndReadableTicks)
{
    const FigureInput input = figureInput();
    const CostShape shape = costShape(*input.result, 0);
    const struct {
        const char* figure;
        ChartModel model;
    } charts[] = {{"score-path", scorePathChart(shape)},
                  {"layer-parameters", layerParametersChart(shape)},
                  {"parameters-vs-h", totalsChart(shape)},
                  {"score-flops", scoreFlopChart(shape)}};
    for (const auto& chart : charts) {
        for (const QSize size : {QSize(1000, 700), QSize(560, 360)}) {
            const auto device = probe(*findFigure(QString::fromLatin1(chart.figure)), input, size);
            for (const ChartSeries& s : chart.model.series) {
                if (!s.inLegend) continue;
                EXPECT_TRUE(device->shows(s.name)) << chart.figure << ": " << s.name.toStdString();
            }
            EXPECT_TRUE(device->shows(chart.model.title)) << chart.figure;
            for (const QString& text : device->strings()) {
                EXPECT_FALSE(text.contains(QRegularExpression(QStringLiteral("\\de[+-]\\d")))) << text.toStdString();
            }
        }
    }
    // d_model 768, 12 heads: large numbers as "2,048"-style or "22.5k"-style ticks.
    FigureInput large;
    large.result = testing::figureResult(qkv::AttentionMode::Cross, 768, 12);
    const auto device = probe(*findFigure(QStringLiteral("comparison")), large, QSize(1400, 900));
    EXPECT_EQ(device->problems().join(QLatin1Char('\n')).toStdString(), "");
    EXPECT_TRUE(device->strings().contains(QStringLiteral("589,824")))  // d_model^2, a bar's exact value
        << device->strings().join(" | ").toStdString();
}

// Ticks, colour bars and captions as people write numbers ("120", "2,048", "3.2×10⁻⁷"), never as
// a printf does ("1e+02", "3e+02"), however large or small the values: token scale 50 makes q_i
// and k_i reach the hundreds, 0.001 makes them tiny.
TEST(FigureReadability, NoFigureWritesAComputersExponent)
{
    const QRegularExpression exponent(QStringLiteral("\\de[+-]?\\d"));
    for (const float scale : {50.0f, 0.001f}) {
        qkv::Config config;
        config.sourceText = "the cat sat on the mat";
        config.targetText = "le chat est assis";
        config.mode = qkv::AttentionMode::Cross;
        config.tokenEmbeddingScale = scale;
        auto result = qkv::compute(config);
        ASSERT_TRUE(result.ok()) << result.error();
        FigureInput input = figureInput();
        input.result = result.value();
        for (const Figure& figure : allFigures()) {
            const auto device = probe(figure, input, QSize(1400, 900));
            for (const QString& text : device->strings())
                EXPECT_FALSE(text.contains(exponent))
                    << figure.name.toStdString() << " at token scale " << scale << ": " << text.toStdString();
        }
    }
}

TEST(FigureReadability, TheColourScaleIsTheOneAsked)
{
    FigureInput input = figureInput();
    const Figure& heads = *findFigure(QStringLiteral("heads"));
    input.options.view.colorRange = {qkv::ColorRange::Mode::UnitInterval, 0, 1};
    EXPECT_TRUE(probe(heads, input, QSize(1400, 900))->shows(QStringLiteral("attention weight (scale 0 to 1)")));
    input.options.view.colorRange = {qkv::ColorRange::Mode::Fixed, 0.1, 0.3};
    EXPECT_TRUE(probe(heads, input, QSize(1400, 900))
                    ->shows(QStringLiteral("fixed scale 0.1 to 0.3; values beyond it saturate")));
    input.options.view.show = "scores";
    input.options.view.colorRange = {};
    const auto scores = probe(heads, input, QSize(1400, 900));
    EXPECT_TRUE(scores->shows(QStringLiteral("scaled score q·k/√d_k (automatic scale: ±")))
        << scores->strings().join(" | ").toStdString();
    EXPECT_TRUE(scores->shows(QStringLiteral("Scaled scores (before mask)")));
}

}  // namespace
}  // namespace qkv::ui
