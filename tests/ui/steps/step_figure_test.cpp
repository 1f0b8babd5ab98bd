// The step figure stays legible at the window's common sizes and one column wide: no colour
// bar, tick or label is drawn over a step's heading; the bars' ticks are whole at any
// magnitude; every row of a 13-key value matrix is labelled (and a thinned one says its rule);
// Concat's head labels are whole and apart; the sign has one colour in every bar.

#include <QImage>
#include <QPainter>
#include <QTextLayout>
#include <QRegularExpression>
#include <QScrollArea>

#include <cmath>
#include <map>
#include <set>

#include "tests/ui/support/layer_test_support.hpp"
#include "tests/ui/support/text_probe.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/figure_registry/figure_registry.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figures/figure_render.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/render/colormap.hpp"
#include "ui/steps/step_figures.hpp"
#include "ui/steps/step_view.hpp"

namespace qkv::ui::testing {
namespace {

// The three window-like sizes, and the one-column width the view gets in a 1000 x 700 window.
const QSize kSizes[] = {QSize(1000, 700), QSize(1400, 900), QSize(1920, 1080), QSize(620, 1500)};

struct PaintedSteps {
    std::unique_ptr<TextProbe> probe;
    StepNumbers numbers;
    StepGeometry geometry;
};

PaintedSteps paintStepFigure(const qkv::Config& config, QSize size, int head = 0, int query = 0, int key = 0)
{
    PaintedSteps p;
    const auto result = computeResult(config);
    if (!result) return p;
    p.numbers = gatherStepNumbers(*result, head, query, key);
    p.probe = std::make_unique<TextProbe>(size);
    const FigureOptions options;
    const QRectF rect(QPointF(0, 0), QSizeF(size));
    {
        QPainter painter(p.probe.get());
        paintSteps(painter, rect, p.numbers, options);
    }
    p.geometry = stepGeometry(rect, p.numbers, QFontMetricsF(options.font, p.probe.get()));
    return p;
}

QString at(const QRectF& r)
{
    return QStringLiteral("(%1, %2, %3 x %4)").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
}

// The 13-token French sentence attending to itself: a value matrix of 13 rows.
qkv::Config thirteenKeys(qkv::Index heads = 4)
{
    qkv::Config config = selfConfig();
    config.sourceText = "Le chat noir s'est assis sur le tapis parce qu'il était fatigué.";
    config.headCount = heads;
    return config;
}

// Texts drawn with their centre inside `rect`.
std::vector<DrawnText> textsIn(const TextProbe& probe, const QRectF& rect)
{
    std::vector<DrawnText> inside;
    for (const DrawnText& t : probe.texts())
        if (rect.contains(t.bounds.center())) inside.push_back(t);
    return inside;
}

void expectApart(const std::vector<DrawnText>& texts, const std::string& where)
{
    for (std::size_t i = 0; i < texts.size(); ++i)
        for (std::size_t j = i + 1; j < texts.size(); ++j)
            EXPECT_FALSE(texts[i].bounds.intersects(texts[j].bounds))
                << where << ": '" << texts[i].text.toStdString() << "' " << at(texts[i].bounds).toStdString()
                << " over '" << texts[j].text.toStdString() << "' " << at(texts[j].bounds).toStdString();
}

TEST(StepFigure, NothingIsDrawnOverAStepsHeading)
{
    for (const qkv::Config& config : {thirteenKeys(), crossConfig()}) {
        for (const QSize size : kSizes) {
            const PaintedSteps p = paintStepFigure(config, size, 1, 2, 3);
            ASSERT_TRUE(p.probe);
            const StepTexts texts = stepTexts(p.numbers);
            for (std::size_t s = 0; s < 10; ++s) {
                const QRectF heading = p.geometry.names[s];
                for (const DrawnText& t : p.probe->texts()) {
                    if (!t.bounds.adjusted(1, 1, -1, -1).intersects(heading)) continue;
                    // Only the heading's own words may be there (one string may be drawn in parts).
                    EXPECT_TRUE(texts.names[s].contains(t.text.trimmed()) &&
                                heading.adjusted(-1, -1, 1, 1).contains(t.bounds))
                        << "'" << t.text.toStdString() << "' " << at(t.bounds).toStdString() << " over heading "
                        << s + 1 << " " << at(heading).toStdString() << " at " << size.width() << " x "
                        << size.height();
                }
            }
        }
    }
}

// q_i and k_j reach the hundreds at token scale 50 and are tiny at 0.001: their ticks are
// written as people write numbers and never cut by the axis.
TEST(StepFigure, BarTicksAreWholeAndReadableAtAnyMagnitude)
{
    const QRegularExpression exponent(QStringLiteral("\\de[+-]?\\d"));
    for (const float scale : {50.0f, 0.001f, 1.0f}) {
        qkv::Config config = crossConfig();
        config.tokenEmbeddingScale = scale;
        for (const QSize size : kSizes) {
            const PaintedSteps p = paintStepFigure(config, size);
            ASSERT_TRUE(p.probe);
            const std::string where = "token scale " + std::to_string(scale) + " at " + std::to_string(size.width()) +
                                      " x " + std::to_string(size.height());
            EXPECT_EQ(p.probe->problems().join(QLatin1Char('\n')).toStdString(), "") << where;
            for (const QString& text : p.probe->strings())
                EXPECT_FALSE(text.contains(exponent)) << where << ": " << text.toStdString();
        }
    }
}

// However short a row of bars, its value ticks never overlap (③ at 30 pixels printed "22" over
// "−0.18"), and the largest value's tick is always there.
TEST(StepFigure, BarTicksNeverOverlapAtAnyHeight)
{
    QImage device(10, 10, QImage::Format_ARGB32);
    const QFontMetricsF metrics(figureFont(), &device);
    const std::vector<std::vector<float>> rows = {{22.0f, -0.18f, 3.0f}, {0.1f, -0.06f}, {210.0f, -130.0f},
                                                   {0.5f, 0.0f, 0.5f}, {-1.0f, -2.0f}};
    for (const std::vector<float>& values : rows)
        for (bool percent : {false, true})
            for (double height = 12; height <= 160; height += 3) {
                BarsStyle style;
                style.percent = percent;
                const QRectF target(0, 0, 300, height);
                const BarsGeometry g = barsGeometry(target, values, style, metrics);
                const std::vector<BarTick> ticks = barTicks(g, barRange(values, style), style, target, metrics);
                ASSERT_FALSE(ticks.empty());
                for (std::size_t i = 0; i < ticks.size(); ++i)
                    for (std::size_t j = i + 1; j < ticks.size(); ++j)
                        EXPECT_FALSE(ticks[i].rect.intersects(ticks[j].rect))
                            << ticks[i].text.toStdString() << " " << at(ticks[i].rect).toStdString() << " over "
                            << ticks[j].text.toStdString() << " " << at(ticks[j].rect).toStdString() << " at height "
                            << height;
            }
}

// ②'s formula for a full W_i head wraps between its parts, never inside an equation: no line
// holds "x_jᵀ)" alone.
TEST(StepFigure, AFullWiFormulaWrapsBetweenEquationsOnly)
{
    StepNumbers n;
    n.valid = true;
    n.d_model = 64;
    n.headCount = 4;
    n.keyValueHeadCount = 4;
    n.d_k = 64;  // a full W_i head: W_i^Q = W_i, W_i^K = I
    n.d_v = 16;
    const QString formula = stepTexts(n).formulas[1];
    ASSERT_TRUE(formula.contains(QStringLiteral("x_jᵀ"))) << formula.toStdString();
    QImage device(10, 10, QImage::Format_ARGB32);
    for (int width = 120; width <= 900; width += 10) {
        QTextLayout layout(formula, figureFont(), &device);
        QTextOption option;
        option.setWrapMode(QTextOption::WordWrap);
        layout.setTextOption(option);
        layout.beginLayout();
        for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
            line.setLineWidth(width);
            const QString text = formula.mid(line.textStart(), line.textLength()).trimmed();
            EXPECT_FALSE(text == QStringLiteral("x_jᵀ)") || text.startsWith(QStringLiteral("x_jᵀ")))
                << "at " << width << ": '" << text.toStdString() << "'";
        }
        layout.endLayout();
    }
}

// Every key's label left of V_i's 13 rows, whole and apart, in the figure at the window sizes.
TEST(StepFigure, EveryRowOfA13KeyValueMatrixIsLabelled)
{
    const qkv::Config config = thirteenKeys();
    for (const QSize size : kSizes) {
        const PaintedSteps p = paintStepFigure(config, size, 0, 0, 4);
        ASSERT_TRUE(p.probe);
        const std::vector<DrawnText> labels = textsIn(*p.probe, p.geometry.valueLabels);
        const std::string where = std::to_string(size.width()) + " x " + std::to_string(size.height());
        QStringList drawn;
        for (const DrawnText& t : labels) drawn << t.text;
        EXPECT_EQ(labels.size(), 13u) << where << ": " << drawn.join(QStringLiteral(" | ")).toStdString();
        for (qkv::Index j = 0; j < 13; ++j) EXPECT_TRUE(p.probe->shows(p.numbers.keyLabels[j])) << where << " " << j;
        expectApart(labels, where);
    }
}

// Too many keys to label each: one in k is labelled (and the selected key), apart, and the
// figure says which.
TEST(StepFigure, AThinnedValueMatrixSaysWhichKeysItLabels)
{
    const qkv::Config config = longConfig(200, 64, 4);
    const PaintedSteps p = paintStepFigure(config, QSize(1000, 700), 0, 0, 101);
    ASSERT_TRUE(p.probe);
    const std::vector<DrawnText> labels = textsIn(*p.probe, p.geometry.valueLabels);
    expectApart(labels, "200 keys");
    const QRegularExpression rule(QStringLiteral("key labels: 1 in (\\d+)"));
    const QRegularExpressionMatch match = rule.match(p.probe->strings().join(QLatin1Char(' ')));
    ASSERT_TRUE(match.hasMatch()) << p.probe->strings().join(QStringLiteral(" | ")).toStdString();
    const int every = match.captured(1).toInt();
    ASSERT_GT(every, 1);
    // Rows 0, k, 2k, ... and the selected key 101, less the neighbours that make room for it.
    const auto expected = static_cast<std::size_t>((200 + every - 1) / every);
    EXPECT_GE(labels.size() + 1, expected);
    EXPECT_LE(labels.size(), expected + 1);
    EXPECT_TRUE(std::any_of(labels.begin(), labels.end(),
                            [&](const DrawnText& t) { return t.text == p.numbers.keyLabels[101]; }));
}

// One form for every head under Concat, each label whole, inside the row and apart from the
// next, at every size and head count; at 1920 x 1080 eight heads are named in full.
TEST(StepFigure, ConcatsHeadLabelsAreWholeAndApart)
{
    for (const qkv::Index heads : {4, 8, 16}) {
        for (const QSize size : kSizes) {
            const PaintedSteps p = paintStepFigure(thirteenKeys(heads), size, 1, 0, 0);
            ASSERT_TRUE(p.probe);
            const std::string where = std::to_string(heads) + " heads at " + std::to_string(size.width()) + " x " +
                                      std::to_string(size.height());
            const std::vector<DrawnText> labels = textsIn(*p.probe, p.geometry.concatLabels);
            ASSERT_FALSE(labels.empty()) << where;
            expectApart(labels, where);
            const bool named = labels.front().text.startsWith(QStringLiteral("Head"));
            for (const DrawnText& t : labels) {
                EXPECT_FALSE(t.clipped) << where << ": " << t.text.toStdString();
                EXPECT_TRUE(p.geometry.concatLabels.adjusted(-1, -1, 1, 1).contains(t.bounds))
                    << where << ": " << t.text.toStdString() << " " << at(t.bounds).toStdString();
                EXPECT_EQ(t.text.startsWith(QStringLiteral("Head")), named) << where << ": one form for every head";
            }
            if (named) {
                EXPECT_EQ(labels.size(), static_cast<std::size_t>(heads)) << where;
            }
            EXPECT_EQ(p.probe->problems().join(QLatin1Char('\n')).toStdString(), "") << where;
            if (heads == 8 && size.width() >= 1400) {
                for (qkv::Index i = 0; i < heads; ++i) EXPECT_TRUE(p.probe->shows(headName(i))) << where;
            }
        }
    }
}

// The colours of the bars in `rect`: each colour that fills at least 12 pixels and is not grey.
std::map<QRgb, int> barColours(const QImage& image, const QRectF& rect)
{
    std::map<QRgb, int> count;
    const QRect r = rect.toAlignedRect().intersected(image.rect());
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (c.hsvSaturation() > 60) ++count[c.rgb()];
        }
    std::erase_if(count, [](const auto& entry) { return entry.second < 12; });
    return count;
}

int hueDistance(int a, int b)
{
    const int d = std::abs(a - b) % 360;
    return std::min(d, 360 - d);
}

// q_i, k_j, q_i ⊙ k_j and the output row show the sign the same way as the heatmaps: by hue,
// the diverging scale's orange for positive and blue for negative, and the header says so.
TEST(StepFigure, TheSignHasOneColourConventionInEveryBarAndHeatmap)
{
    const qkv::Config config = crossConfig();
    const auto result = computeResult(config);
    ASSERT_NE(result, nullptr);
    FigureInput input;
    input.result = result;
    input.options.head = 1;
    input.options.query = 2;
    input.options.key = 3;
    const QImage image = figureImage(*findFigure(QStringLiteral("steps")), input, ExportSize{QSizeF(1400, 900), 1.0});
    const StepNumbers n = gatherStepNumbers(*result, 1, 2, 3);
    const StepGeometry g =
        stepGeometry(QRectF(0, 0, 1400, 900), n, QFontMetricsF(input.options.font, const_cast<QImage*>(&image)));
    const Colormap& diverging = Colormap::get(qkv::ui::kDivergingColormap);
    const int positiveHue = diverging.map(1.0).hsvHue(), negativeHue = diverging.map(0.0).hsvHue();
    std::set<QRgb> all;
    for (const QRectF& bars : {g.queryBars, g.keyBars, g.productBars, g.outputBars}) {
        const std::map<QRgb, int> colours = barColours(image, bars);
        EXPECT_EQ(colours.size(), 2u) << "bars at " << at(bars).toStdString() << ": one colour per sign";
        for (const auto& [rgb, pixels] : colours) {
            const int hue = QColor(rgb).hsvHue();
            EXPECT_TRUE(hueDistance(hue, positiveHue) < 25 || hueDistance(hue, negativeHue) < 25)
                << "bars at " << at(bars).toStdString() << ": hue " << hue << " is neither the heatmaps' orange ("
                << positiveHue << ") nor their blue (" << negativeHue << ")";
            all.insert(rgb);
        }
    }
    EXPECT_EQ(all.size(), 2u) << "the same two colours in every row of bars";
    const PaintedSteps p = paintStepFigure(config, QSize(1400, 900), 1, 2, 3);
    EXPECT_TRUE(p.probe->shows(QStringLiteral("sign: orange positive, blue negative, in every bar and heatmap")))
        << p.probe->strings().join(QStringLiteral(" | ")).toStdString();
}

// A loaded layer's own conventions are said where they act: the scale's own d, the soft cap
// (and the bars the softmax reads are the capped scores), the rotated share of each head.
TEST(StepFigure, TheLayersOwnScaleCapAndRotatedShareAreSaid)
{
    qkv::Config config = crossConfig();
    config.mode = qkv::AttentionMode::DecoderCausal;
    config.positional = qkv::PositionalEncoding::Rotary;
    config.conventions.scoreDim = 24;
    config.conventions.scoreSoftCap = 0.5;
    config.conventions.rotaryDims = 4;
    const auto result = computeResult(config);
    ASSERT_NE(result, nullptr);
    const StepNumbers n = gatherStepNumbers(*result, 1, 3, 2);
    const StepTexts t = stepTexts(n);
    EXPECT_TRUE(t.formulas[0].contains(QStringLiteral("its first 4 components rotated"))) << t.formulas[0].toStdString();
    EXPECT_TRUE(t.formulas[3].contains(QStringLiteral("√24: the model's query_pre_attn_scalar")))
        << t.formulas[3].toStdString();
    EXPECT_TRUE(t.formulas[3].contains(QStringLiteral("soft-capped"))) << t.formulas[3].toStdString();
    EXPECT_NEAR(n.cappedScore, 0.5 * std::tanh(n.scaledScore / 0.5), 1e-6);
    // The softmax of the bars' scores is the row of weights.
    double sum = 0, top = -1e30;
    for (int j = 0; j <= 3; ++j) top = std::max(top, static_cast<double>(n.rowScores[static_cast<std::size_t>(j)]));
    for (int j = 0; j <= 3; ++j) sum += std::exp(n.rowScores[static_cast<std::size_t>(j)] - top);
    for (int j = 0; j <= 3; ++j)
        EXPECT_NEAR(std::exp(n.rowScores[static_cast<std::size_t>(j)] - top) / sum, n.rowWeights[static_cast<std::size_t>(j)], 1e-5);
}

using StepWindowSizeTest = WindowTest;

// In a 1000 x 700 window the view scrolls rather than squeeze V_i: each of its 13 keys is labelled.
TEST_F(StepWindowSizeTest, At1000x700EveryKeyOfTheValueMatrixIsLabelled)
{
    window->resize(1000, 700);
    setConfig(thirteenKeys());
    window->tabs()->setCurrentWidget(window->stepView());
    settle();
    StepView* view = window->stepView();
    ASSERT_TRUE(view->numbers().valid);
    FigureCanvas* canvas = view->canvas();
    TextProbe probe(canvas->size());
    canvas->render(&probe, QPoint(), QRegion(), QWidget::DrawChildren);
    const std::vector<DrawnText> labels = textsIn(probe, view->geometry().valueLabels);
    QStringList drawn;
    for (const DrawnText& t : labels) drawn << t.text;
    EXPECT_EQ(labels.size(), 13u) << drawn.join(QStringLiteral(" | ")).toStdString();
    expectApart(labels, "1000 x 700 window");
    EXPECT_EQ(probe.problems().join(QLatin1Char('\n')).toStdString(), "");
}

}  // namespace
}  // namespace qkv::ui::testing
