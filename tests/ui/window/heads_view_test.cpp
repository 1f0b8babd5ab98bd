#include <QScrollArea>

#include <cmath>

#include "tests/ui/window/window_fixture.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/heads/cell_tooltip.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/heads/heads_view.hpp"

using qkv::ui::testing::WindowTest;

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
    EXPECT_EQ(view->colormap(), qkv::ui::ColormapName::RedBlue);
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
