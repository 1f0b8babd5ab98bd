#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QTableView>

#include <cmath>

#include "core/analysis/value_norms.hpp"
#include "tests/ui/support/wait_until.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/document/examples.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/heads/cell_tooltip.hpp"
#include "ui/heads/head_statistics_table.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/render/heatmap_layout.hpp"
#include "ui/heads/heads_view.hpp"

using qkv::ui::testing::WindowTest;

namespace {

// The view's own combo box holding `text` among its entries.
QComboBox* comboBoxWith(QWidget* view, const QString& text)
{
    for (QComboBox* box : view->findChildren<QComboBox*>())
        if (box->findText(text) >= 0) return box;
    return nullptr;
}

// Largest |a - b| over two matrices of one shape (NaN where either is NaN: masked, hatched).
double largestDifference(const qkv::MatrixF& a, const qkv::MatrixF& b)
{
    EXPECT_EQ(a.rows(), b.rows());
    EXPECT_EQ(a.cols(), b.cols());
    double largest = 0;
    for (qkv::Index i = 0; i < a.size() && a.size() == b.size(); ++i)
        largest = std::max(largest, std::abs(static_cast<double>(a.data()[i]) - b.data()[i]));
    return largest;
}

}  // namespace

TEST_F(WindowTest, TooltipOfAKnownCell)
{
    qkv::ui::HeadsCanvas* canvas = window->headsView()->canvas();
    const auto result = window->document()->result();
    ASSERT_NE(result, nullptr);
    const int head = 1, row = 1, column = 5;  // query "cat", key "mat"
    const QString tip = canvas->toolTipAt(canvas->cellCenter(head, row, column));
    EXPECT_EQ(tip, qkv::ui::cellToolTip(*result, head, row, column));
    EXPECT_TRUE(tip.contains(QStringLiteral("Head 2")));
    EXPECT_TRUE(tip.contains(QStringLiteral("«cat» (position 1)")));  // positions from 0
    EXPECT_TRUE(tip.contains(QStringLiteral("«mat» (position 5)")));
    const qkv::HeadAttention& h = result->attention.heads[head];
    const double weight = h.attention(row, column) * 100.0;
    EXPECT_TRUE(tip.contains(QStringLiteral("Weight: %1 %").arg(weight, 0, 'f', 1))) << tip.toStdString();
    const double scaled = h.scores(row, column);
    const double raw = scaled * std::sqrt(static_cast<double>(result->attention.d_k()));
    EXPECT_TRUE(tip.contains(QStringLiteral("Raw score q·k: %1").arg(raw, 0, 'f', 4)));
    EXPECT_TRUE(tip.contains(QStringLiteral("Scaled score q·k/√d_k: %1").arg(scaled, 0, 'f', 4)));
}

TEST_F(WindowTest, HoveringARowLabelHighlightsThatRowInEveryHead)
{
    qkv::ui::HeadsCanvas* canvas = window->headsView()->canvas();
    EXPECT_EQ(canvas->highlightedRow(), -1);
    QTest::mouseMove(canvas, canvas->rowLabelCenter(2, 3));
    QCoreApplication::processEvents();
    EXPECT_EQ(canvas->highlightedRow(), 3);
    const qkv::ui::HeadsFigureState state = canvas->paintState();
    for (int panel = 0; panel < canvas->panelCount(); ++panel)
        EXPECT_EQ(qkv::ui::panelStyle(*canvas->figure(), panel, state).highlightedRow, 3);
    // Hovering a cell highlights its row too.
    QTest::mouseMove(canvas, canvas->cellCenter(0, 4, 1));
    QCoreApplication::processEvents();
    EXPECT_EQ(canvas->highlightedRow(), 4);
}

TEST_F(WindowTest, ClickingAHeadSelectsItAndItsCell)
{
    qkv::ui::HeadsCanvas* canvas = window->headsView()->canvas();
    QTest::mouseClick(canvas, Qt::LeftButton, {}, canvas->cellCenter(2, 3, 4));
    EXPECT_EQ(window->selection()->head(), 2);
    EXPECT_EQ(window->selection()->queryRow(), 3);
    EXPECT_EQ(window->selection()->keyColumn(), 4);
}

TEST_F(WindowTest, ArrowKeysMoveTheHighlightedCell)
{
    qkv::ui::HeadsCanvas* canvas = window->headsView()->canvas();
    window->selection()->setCell(0, 0);
    canvas->setFocus();
    QTest::keyClick(canvas, Qt::Key_Right);
    QTest::keyClick(canvas, Qt::Key_Right);
    QTest::keyClick(canvas, Qt::Key_Down);
    EXPECT_EQ(window->selection()->queryRow(), 1);
    EXPECT_EQ(window->selection()->keyColumn(), 2);
    QTest::keyClick(canvas, Qt::Key_Up);
    QTest::keyClick(canvas, Qt::Key_Up);  // stays inside the matrix
    EXPECT_EQ(window->selection()->queryRow(), 0);
    EXPECT_EQ(canvas->paintState().highlightedCell, QPoint(2, 0));
}

TEST_F(WindowTest, NextAndPreviousHeadWrapAround)
{
    window->selection()->setHead(3);
    window->nextHead();
    EXPECT_EQ(window->selection()->head(), 0);
    window->previousHead();
    EXPECT_EQ(window->selection()->head(), 3);
}

TEST_F(WindowTest, TwelveHeadsFitWithoutSquashing)
{
    qkv::Config config = smallConfig();
    config.d_model = 96;
    config.headCount = 12;
    setConfig(config);
    qkv::ui::HeadsCanvas* canvas = window->headsView()->canvas();
    ASSERT_EQ(canvas->panelCount(), 12);
    const auto& layout = canvas->gridLayout();
    const QSize viewport = window->headsView()->scrollArea()->viewport()->size();
    EXPECT_LE(layout.size.width(), viewport.width() + 1);
    EXPECT_LE(layout.size.height(), viewport.height() + 1);
    EXPECT_GE(layout.cellSize, 8.0);
    for (std::size_t i = 0; i < layout.panels.size(); ++i)
        for (std::size_t j = i + 1; j < layout.panels.size(); ++j)
            EXPECT_FALSE(layout.panels[i].intersects(layout.panels[j])) << i << " " << j;
}

// At 1000 x 700 the first example's four heads (13 x 12 tokens) label every token: the panels
// share their axes (the queries once per grid row, the keys once per grid column), and the
// statistics beside the grid are as tall as their rows, the hint under them, the grid the whole
// height.
TEST_F(WindowTest, AtTheSmallestWindowEveryTokenIsLabelledOnSharedAxes)
{
    window->files()->openExample(qkv::ui::firstStartExample());
    window->resize(1000, 700);
    window->tabs()->setCurrentWidget(window->headsView());
    settle();
    QCoreApplication::processEvents();
    qkv::ui::HeadsView* view = window->headsView();
    qkv::ui::HeadsCanvas* canvas = view->canvas();
    ASSERT_EQ(canvas->panelCount(), 4);
    ASSERT_EQ(canvas->figure()->rows(), 13);
    const qkv::ui::HeadsGridLayout& layout = canvas->gridLayout();
    ASSERT_EQ(layout.columns, 2);
    EXPECT_EQ(layout.rowLabels, (std::vector<bool>{true, false, true, false}));
    EXPECT_EQ(layout.columnLabels, (std::vector<bool>{false, false, true, true}));
    const QFontMetricsF metrics(canvas->font(), canvas);
    const qkv::ui::HeadsFigureState state = canvas->paintState();
    for (int panel = 0; panel < 4; ++panel) {
        const qkv::ui::HeatmapStyle style = qkv::ui::panelStyle(*canvas->figure(), panel, state, &layout);
        EXPECT_EQ(style.rowLabels.isEmpty(), !layout.rowLabels[static_cast<std::size_t>(panel)]) << panel;
        EXPECT_EQ(style.columnLabels.isEmpty(), !layout.columnLabels[static_cast<std::size_t>(panel)]) << panel;
        const qkv::ui::HeatmapLayout cells(layout.panels[static_cast<std::size_t>(panel)], canvas->figure()->rows(),
                                           canvas->figure()->columns(), style, metrics);
        EXPECT_EQ(cells.rowLabelStep(), 1) << "panel " << panel << ": cells of " << cells.cellHeight() << " px";
        EXPECT_EQ(cells.columnLabelStep(), 1) << "panel " << panel;
        // The cells of a grid row, and of a grid column, line up with the labels they share.
        const qkv::ui::HeatmapLayout first(layout.panels[static_cast<std::size_t>(panel - panel % 2)],
                                           canvas->figure()->rows(), canvas->figure()->columns(),
                                           qkv::ui::panelStyle(*canvas->figure(), panel - panel % 2, state, &layout),
                                           metrics);
        EXPECT_NEAR(cells.cellsRect().top(), first.cellsRect().top(), 0.01) << panel;
    }
    const QSize viewport = view->scrollArea()->viewport()->size();
    EXPECT_LE(layout.size.height(), viewport.height() + 1) << "the grid fits without scrolling";
    EXPECT_LE(layout.size.width(), viewport.width() + 1);
    // The statistics: beside, as tall as their rows, the hint right under them.
    qkv::ui::HeadStatisticsTable* statistics = view->statisticsTable();
    ASSERT_TRUE(statistics->isBeside());
    QTableView* table = statistics->table();
    const int rows = table->verticalHeader()->length() + table->horizontalHeader()->height() + 2 * table->frameWidth();
    EXPECT_LE(table->height(), rows + 4);
    const auto* hint = statistics->findChildren<QLabel*>().last();
    EXPECT_TRUE(hint->text().startsWith(QStringLiteral("Hover a cell"))) << hint->text().toStdString();
    EXPECT_GE(hint->geometry().top(), table->geometry().bottom());
    EXPECT_LE(hint->geometry().top(), table->geometry().bottom() + 12);
}

TEST_F(WindowTest, HundredsOfTokensScrollAndStayReadable)
{
    qkv::Config config = smallConfig();
    std::string text;
    for (int i = 0; i < 300; ++i) text += "word" + std::to_string(i) + " ";
    config.sourceText = text;
    setConfig(config);
    qkv::ui::HeadsCanvas* canvas = window->headsView()->canvas();
    ASSERT_EQ(canvas->figure()->rows(), 300);
    const qkv::ui::HeadsGridLayout layout = canvas->gridLayout();
    // Each heatmap is at least ~110 px: the grid grows and scrolls instead of squashing.
    EXPECT_GE(layout.cellSize * 300, 100.0);
    window->headsView()->zoomBy(4);
    EXPECT_GT(canvas->gridLayout().cellSize, layout.cellSize);
    window->headsView()->zoomToFit();
}

TEST_F(WindowTest, ScoreKindsAndColormaps)
{
    qkv::ui::HeadsView* view = window->headsView();
    view->setScoreKind(qkv::ui::ScoreKind::ScaledScores);
    EXPECT_EQ(view->colormap(), qkv::ui::ColormapName::BlueOrange);
    const auto figure = view->canvas()->figure();
    EXPECT_DOUBLE_EQ(figure->minValue(), -figure->maxValue());
    view->setScoreKind(qkv::ui::ScoreKind::Attention);
    EXPECT_EQ(view->colormap(), qkv::ui::ColormapName::Viridis);
    EXPECT_DOUBLE_EQ(view->canvas()->figure()->minValue(), 0.0);
}

TEST_F(WindowTest, CausalMaskIsHatchedInScoresAfterMask)
{
    qkv::Config config = smallConfig();
    config.mode = qkv::AttentionMode::DecoderCausal;
    config.targetText = "le chat est assis";
    setConfig(config);
    window->headsView()->setScoreKind(qkv::ui::ScoreKind::MaskedScores);
    const auto figure = window->headsView()->canvas()->figure();
    EXPECT_TRUE(std::isinf(figure->panel(0)(0, 3)));
    EXPECT_TRUE(std::isfinite(figure->panel(0)(3, 0)));
    window->headsView()->setScoreKind(qkv::ui::ScoreKind::Attention);
}

TEST_F(WindowTest, ValueWeightedShowsCoresNormsPerHeadAndTheLayersOwn)
{
    window->document()->setAblatedHeads({2});  // head 3 switched off
    settle();
    qkv::ui::HeadsView* view = window->headsView();
    const auto result = window->document()->result();
    ASSERT_NE(result, nullptr);
    const qkv::Expected<qkv::ValueNorms> expected = qkv::valueWeightedNorms(result->attention, *result->weights);
    ASSERT_TRUE(expected.ok()) << expected.error();

    // Chosen in the Show box as a user would.
    QComboBox* show = comboBoxWith(view, qkv::ui::scoreKindName(qkv::ui::ScoreKind::ValueWeighted));
    ASSERT_NE(show, nullptr);
    show->setCurrentIndex(show->findText(qkv::ui::scoreKindName(qkv::ui::ScoreKind::ValueWeighted)));
    EXPECT_EQ(view->scoreKind(), qkv::ui::ScoreKind::ValueWeighted);
    EXPECT_EQ(view->colormap(), qkv::ui::ColormapName::Magma);  // sequential: a length >= 0
    auto figure = view->canvas()->figure();
    ASSERT_NE(figure, nullptr);
    ASSERT_EQ(figure->panelCount(), 4);
    for (int head = 0; head < 4; ++head) {
        // The drawn panel is core's N_i, which is not the weight (a weight is no length).
        EXPECT_LT(largestDifference(figure->panel(head), expected->heads[static_cast<std::size_t>(head)]), 1e-6)
            << "head " << head;
        EXPECT_GT(
            largestDifference(figure->panel(head), result->attention.heads[static_cast<std::size_t>(head)].attention),
            1e-3);
    }
    EXPECT_GT(expected->heads[2].maxCoeff(), 0.0f);  // the switched-off head keeps its own N_i
    EXPECT_TRUE(figure->legendLabel().startsWith(qkv::ui::scoreKindLegend(qkv::ui::ScoreKind::ValueWeighted)));
    EXPECT_TRUE(figure->legendLabel().contains(QStringLiteral("‖a·f(x)‖")));

    // The tooltip gives core's number and says what it is.
    qkv::ui::HeadsCanvas* canvas = view->canvas();
    const int row = 1, column = 5;
    const QString tip = canvas->toolTipAt(canvas->cellCenter(1, row, column));
    EXPECT_TRUE(
        tip.contains(QStringLiteral("Value-weighted ‖a·f(x)‖: %1").arg(expected->heads[1](row, column), 0, 'f', 4)))
        << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("‖f(x)‖ = %1").arg(expected->transformedNorms(column, 1), 0, 'f', 4)))
        << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("adds to this query's output"))) << tip.toStdString();
    EXPECT_TRUE(canvas->toolTipAt(canvas->cellCenter(2, row, column)).contains(QStringLiteral("Switched off")));

    // The "average" panel is the layer's own norm (head 3 left out by core), not a mean of norms.
    view->setShowAverage(true);
    figure = canvas->figure();
    ASSERT_EQ(figure->panelCount(), 5);
    EXPECT_EQ(figure->headOfPanel(4), -1);
    EXPECT_LT(largestDifference(figure->panel(4), expected->layer), 1e-6);
    qkv::MatrixF mean = (expected->heads[0] + expected->heads[1] + expected->heads[2] + expected->heads[3]) / 4.0f;
    EXPECT_GT(largestDifference(figure->panel(4), mean), 1e-3);
    EXPECT_TRUE(figure->panelTitle(4).startsWith(QStringLiteral("Layer (all heads")));
    const QString layerTip = canvas->toolTipAt(canvas->cellCenter(4, row, column));
    EXPECT_TRUE(
        layerTip.contains(QStringLiteral("Value-weighted ‖Σ a·f(x)‖: %1").arg(expected->layer(row, column), 0, 'f', 4)))
        << layerTip.toStdString();
    window->document()->setAblatedHeads({});
    settle();
    EXPECT_EQ(canvas->figure()->panelTitle(4), QStringLiteral("Layer (all heads)"));

    // "0 to 1" means the whole range of the quantity: 0 to the largest norm.
    QComboBox* range = comboBoxWith(view, QStringLiteral("0 to max"));
    ASSERT_NE(range, nullptr);
    range->setCurrentIndex(range->findText(QStringLiteral("0 to max")));
    figure = canvas->figure();
    float largest = 0;
    for (int p = 0; p < figure->panelCount(); ++p) largest = std::max(largest, figure->panel(p).maxCoeff());
    EXPECT_DOUBLE_EQ(figure->minValue(), 0.0);
    EXPECT_GE(figure->maxValue(), largest);
    EXPECT_LT(figure->maxValue(), 2.0 * largest);
    EXPECT_FALSE(figure->saturates());
    EXPECT_TRUE(figure->legendLabel().contains(QStringLiteral("the largest value")))
        << figure->legendLabel().toStdString();
    view->setScoreKind(qkv::ui::ScoreKind::Attention);
    EXPECT_EQ(range->itemText(1), QStringLiteral("0 to 1"));
    view->setShowAverage(false);
    view->setColorRange({});
}

TEST_F(WindowTest, ValueWeightedNormsOfALargeLayerAreComputedOffTheGuiThreadOnce)
{
    qkv::Config config = smallConfig();
    config.d_model = 512;
    config.headCount = 8;
    std::string text;
    for (int i = 0; i < 128; ++i) text += "word" + std::to_string(i) + " ";
    config.sourceText = text;
    setConfig(config);
    qkv::ui::HeadsView* view = window->headsView();
    const auto before = view->canvas()->figure();
    view->setScoreKind(qkv::ui::ScoreKind::ValueWeighted);
    EXPECT_TRUE(view->isBusy());
    EXPECT_EQ(view->canvas()->figure(), before);  // the grid keeps the last figure meanwhile
    ASSERT_TRUE(qkv::ui::testing::waitUntil([view] { return !view->isBusy(); }));
    const auto figure = view->canvas()->figure();
    ASSERT_NE(figure->valueNorms(), nullptr);
    const auto result = window->document()->result();
    const qkv::Expected<qkv::ValueNorms> expected = qkv::valueWeightedNorms(result->attention, *result->weights);
    ASSERT_TRUE(expected.ok());
    EXPECT_LT(largestDifference(figure->panel(5), expected->heads[5]), 1e-5);
    // Once per result: other options reuse the same norms, now on the GUI thread.
    view->setShowAverage(true);
    EXPECT_FALSE(view->isBusy());
    EXPECT_EQ(view->canvas()->figure()->valueNorms(), figure->valueNorms());
    view->setShowAverage(false);
    view->setScoreKind(qkv::ui::ScoreKind::Attention);
}
