// One name per quantity everywhere (the raw score is q·k, the scaled score
// q·k/√d_k: colour bars, tooltips and the step view agree), and the tooltip follows the cell
// the keyboard moves to.

#include <QToolTip>

#include "tests/ui/support/window_fixture.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/heads/cell_tooltip.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/steps/step_view.hpp"

using qkv::ui::testing::WindowTest;

namespace qkv::ui {
namespace {

TEST_F(WindowTest, OneNamePerQuantity)
{
    EXPECT_EQ(rawScoreName(), QStringLiteral("raw score q·k"));
    EXPECT_EQ(scaledScoreName(), QStringLiteral("scaled score q·k/√d_k"));
    // The heads grid's scores are the scaled ones, and say so.
    EXPECT_TRUE(scoreKindLegend(ScoreKind::ScaledScores).startsWith(scaledScoreName()));
    EXPECT_TRUE(scoreKindLegend(ScoreKind::MaskedScores).startsWith(scaledScoreName()));
    for (const ScoreKindEntry& entry : kScoreKinds)
        EXPECT_FALSE(scoreKindName(entry.value).contains(QStringLiteral("Raw")))
            << scoreKindName(entry.value).toStdString();
    window->headsView()->setScoreKind(ScoreKind::ScaledScores);
    EXPECT_TRUE(window->headsView()->canvas()->figure()->legendLabel().startsWith(scaledScoreName()));
    window->headsView()->setScoreKind(ScoreKind::Attention);

    // The tooltip: raw = q·k, scaled = q·k/√d_k, with the core's numbers.
    const auto result = window->document()->result();
    const QString tip = cellToolTip(*result, 1, 2, 3);
    const double raw = result->attention.rawScore(1, 2, 3), scaled = result->attention.heads[1].scores(2, 3);
    EXPECT_TRUE(tip.contains(QStringLiteral("Raw score q·k: %1").arg(raw, 0, 'f', 4))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("Scaled score q·k/√d_k: %1").arg(scaled, 0, 'f', 4))) << tip.toStdString();

    // The step view names the same two numbers the same way.
    window->tabs()->setCurrentWidget(window->stepView());
    window->selection()->setHead(1);
    window->selection()->setCell(2, 3);
    EXPECT_TRUE(window->stepView()->dotText().contains(rawScoreName()));
    EXPECT_TRUE(window->stepView()->dotText().contains(StepView::number(raw)));
    EXPECT_TRUE(window->stepView()->scaleText().contains(scaledScoreName()));
    EXPECT_TRUE(window->stepView()->scaleText().contains(StepView::number(scaled)));
}

TEST_F(WindowTest, TheTooltipFollowsTheKeyboard)
{
    HeadsCanvas* canvas = window->headsView()->canvas();
    const auto result = window->document()->result();
    window->selection()->setHead(1);
    window->selection()->setCell(0, 0);
    canvas->setFocus();
    // The mouse rests on cell (0, 0) of head 2 and its tip is shown.
    const QPoint resting = canvas->cellCenter(1, 0, 0);
    QTest::mouseMove(canvas, resting);
    QHelpEvent hover(QEvent::ToolTip, resting, canvas->mapToGlobal(resting));
    QCoreApplication::sendEvent(canvas, &hover);
    EXPECT_EQ(canvas->currentToolTip(), cellToolTip(*result, 1, 0, 0));

    // Two keys right, one down: the tip describes (1, 2), also after the keys are released.
    QTest::keyClick(canvas, Qt::Key_Right);
    QTest::keyClick(canvas, Qt::Key_Right);
    QTest::keyClick(canvas, Qt::Key_Down);
    EXPECT_EQ(window->selection()->queryRow(), 1);
    EXPECT_EQ(window->selection()->keyColumn(), 2);
    EXPECT_EQ(canvas->currentToolTip(), cellToolTip(*result, 1, 1, 2));
    // A tooltip request while the mouse has not moved keeps describing the keyboard's cell.
    QHelpEvent again(QEvent::ToolTip, resting, canvas->mapToGlobal(resting));
    QCoreApplication::sendEvent(canvas, &again);
    EXPECT_EQ(canvas->currentToolTip(), cellToolTip(*result, 1, 1, 2));

    // Once the mouse moves, the tip follows the mouse again.
    const QPoint elsewhere = canvas->cellCenter(1, 3, 4);
    QTest::mouseMove(canvas, elsewhere);
    QHelpEvent moved(QEvent::ToolTip, elsewhere, canvas->mapToGlobal(elsewhere));
    QCoreApplication::sendEvent(canvas, &moved);
    EXPECT_EQ(canvas->currentToolTip(), cellToolTip(*result, 1, 3, 4));
}

}  // namespace
}  // namespace qkv::ui
