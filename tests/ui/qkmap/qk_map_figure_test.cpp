// The Q/K map's words: its token labels lie inside the plot and apart from each other at every
// size (a label with no room is counted, never silently dropped), even when a uniform head puts
// every query on one point; and the map says that distance on it is not the score.

#include <QPainter>
#include <QRegularExpression>

#include "core/weights/head_preset.hpp"
#include "tests/ui/support/layer_test_support.hpp"
#include "tests/ui/support/text_probe.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figure_registry/figure_registry.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figures/figure_render.hpp"
#include "ui/qkmap/qk_map_figures.hpp"
#include "ui/qkmap/qk_map_view.hpp"

namespace qkv::ui::testing {
namespace {

// Cross-attention on the translation's sentences (13 queries, 12 keys); head 1 uniform
// (W_1^Q = 0: every query on one point of the map).
qkv::Config translationWithAUniformHead()
{
    qkv::Config config = crossConfig();
    config.sourceText = "The black cat sat on the mat because it was tired.";
    config.targetText = "Le chat noir s'est assis sur le tapis parce qu'il était fatigué.";
    config.presets = {qkv::HeadPreset{0, qkv::HeadPresetKind::Uniform}};
    return config;
}

const QString kCaveatStart = QStringLiteral("Distance on this map is not the score");

QString at(const QRectF& r)
{
    return QStringLiteral("(%1, %2, %3 x %4)").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
}

// The labels drawn in the plot (tick labels lie outside it), and the count of hidden ones the
// plot's note gives (0 without a note).
struct PlotTexts {
    std::vector<DrawnText> labels;
    int hidden = 0;
};
PlotTexts plotTexts(const TextProbe& probe, const QRectF& plot)
{
    PlotTexts out;
    const QRegularExpression note(QStringLiteral("^(\\d+) labels? hidden"));
    for (const DrawnText& t : probe.texts()) {
        if (!plot.contains(t.bounds.center())) continue;
        if (const auto match = note.match(t.text); match.hasMatch())
            out.hidden = match.captured(1).toInt();
        else
            out.labels.push_back(t);
    }
    return out;
}

// Every label whole, inside the plot, apart from the others; shown or counted, never dropped.
void expectLegibleLabels(const TextProbe& probe, const QRectF& plot, std::size_t points, const std::string& where)
{
    const PlotTexts texts = plotTexts(probe, plot);
    for (std::size_t i = 0; i < texts.labels.size(); ++i) {
        const DrawnText& a = texts.labels[i];
        EXPECT_FALSE(a.clipped) << where << ": '" << a.text.toStdString() << "' cut";
        EXPECT_TRUE(plot.adjusted(-1, -1, 1, 1).contains(a.bounds))
            << where << ": '" << a.text.toStdString() << "' " << at(a.bounds).toStdString() << " leaves the plot "
            << at(plot).toStdString();
        for (std::size_t j = i + 1; j < texts.labels.size(); ++j)
            EXPECT_FALSE(a.bounds.intersects(texts.labels[j].bounds))
                << where << ": '" << a.text.toStdString() << "' over '" << texts.labels[j].text.toStdString() << "'";
    }
    EXPECT_EQ(texts.labels.size() + static_cast<std::size_t>(texts.hidden), points)
        << where << ": each point's label is drawn or counted as hidden";
}

TEST(QkMapFigure, LabelsStayInsideThePlotAndApartAndHiddenOnesAreCounted)
{
    const auto result = computeResult(translationWithAUniformHead());
    ASSERT_NE(result, nullptr);
    const auto model = QkMapModel::build(result);
    const std::size_t points = static_cast<std::size_t>(result->attention.queryCount() + result->attention.keyCount());
    for (const int head : {0, 1, 2, 3}) {
        for (const QSize size : {QSize(1000, 700), QSize(1400, 900), QSize(1920, 1080), QSize(350, 560)}) {
            FigureOptions options;
            options.head = head;
            options.query = 2;
            TextProbe probe(size);
            const QRectF rect(QPointF(0, 0), QSizeF(size));
            {
                QPainter painter(&probe);
                paintQkMap(painter, rect, *model, options);
            }
            const QkMapGeometry g = qkMapGeometry(rect, *model, head, QFontMetricsF(options.font, &probe));
            ASSERT_TRUE(g.valid);
            const std::string where = "head " + std::to_string(head + 1) + " at " + std::to_string(size.width()) +
                                      " x " + std::to_string(size.height());
            expectLegibleLabels(probe, g.plot, points, where);
            EXPECT_EQ(probe.problems().join(QLatin1Char('\n')).toStdString(), "") << where;
        }
    }
}

// The map is a projection: the sentence under it says what the scores are, at every size.
TEST(QkMapFigure, SaysThatDistanceOnTheMapIsNotTheScore)
{
    FigureInput input;
    input.result = computeResult(translationWithAUniformHead());
    input.options.head = 1;
    for (const QSize size : {QSize(1000, 700), QSize(1400, 900), QSize(1920, 1080), QSize(900, 800)}) {
        TextProbe probe(size);
        {
            QPainter painter(&probe);
            paintFigure(painter, *findFigure(QStringLiteral("qk-map")), QRectF(QPointF(0, 0), QSizeF(size)), input);
        }
        EXPECT_TRUE(probe.shows(kCaveatStart + QStringLiteral(": a query's score for a key is the dot product")))
            << probe.strings().join(QStringLiteral(" | ")).toStdString();
        EXPECT_TRUE(probe.shows(QStringLiteral("over all d_k = 16 dimensions (equation 1)")));
        EXPECT_EQ(probe.problems().join(QLatin1Char('\n')).toStdString(), "");
    }
}

// In the view, as a 1000 x 700 window leaves it room: a uniform head's labels are legible and
// the sentence is there.
TEST(QkMapFigure, TheViewAtASmallWindowKeepsLabelsApartAndSaysWhatDistanceIsNot)
{
    const auto result = computeResult(translationWithAUniformHead());
    ASSERT_NE(result, nullptr);
    QkMapView view(nullptr);
    showAt(view, QSize(620, 600));
    view.setResult(result);
    waitUntilIdle(view);
    view.selection()->setHead(0);
    view.selection()->setCell(0, 0);
    QApplication::processEvents();
    TextProbe probe(view.canvas()->size());
    view.canvas()->render(&probe, QPoint(), QRegion(), QWidget::DrawChildren);
    const QkMapGeometry g = view.headGeometry();
    ASSERT_TRUE(g.valid);
    expectLegibleLabels(probe, g.plot,
                        static_cast<std::size_t>(result->attention.queryCount() + result->attention.keyCount()),
                        "the view at 620 x 600");
    EXPECT_TRUE(probe.shows(kCaveatStart)) << probe.strings().join(QStringLiteral(" | ")).toStdString();
}

}  // namespace
}  // namespace qkv::ui::testing
