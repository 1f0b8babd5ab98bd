// The sentences' chips (ui/controls/token_chips.hpp): every token of a pasted article has its chip
// and the strip scrolls to it; a chip selects its query (shift-click or a drag: several together)
// or, in the sentence that gives the keys, its key; the chips show what is selected.

#include <QMouseEvent>
#include <QSignalSpy>
#include <QTest>

#include "tests/ui/support/window_fixture.hpp"
#include "ui/controls/controls_panel.hpp"
#include "ui/controls/sentence_field.hpp"
#include "ui/controls/token_chips.hpp"
#include "ui/document/head_selection.hpp"

namespace qkv::ui::testing {
namespace {

TEST(TokenChipsStrip, EveryTokenOfALongTextHasAChipThatScrollsIntoView)
{
    TokenChips chips;
    QStringList tokens;
    for (int i = 0; i < 32768; ++i) tokens << QStringLiteral("w%1").arg(i);
    chips.setTokens(tokens);
    chips.resize(300, chips.heightForWidth(300));
    chips.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&chips));
    EXPECT_EQ(chips.tokens().size(), 32768);
    EXPECT_LE(chips.height(), TokenChips::kMaxRows * 30);  // six rows, not thousands
    EXPECT_FALSE(chips.chipRect(0).isEmpty());
    EXPECT_TRUE(chips.chipRect(20000).isEmpty());  // far below, not laid out on screen
    chips.scrollToToken(20000);
    const QRect shown = chips.chipRect(20000);
    ASSERT_FALSE(shown.isEmpty());
    EXPECT_TRUE(chips.rect().contains(shown.center()));
    EXPECT_GT(chips.firstVisibleRow(), 0);
    // The chip under the mouse is the one chosen.
    QSignalSpy chosen(&chips, &TokenChips::chipsChosen);
    QTest::mouseClick(&chips, Qt::LeftButton, {}, shown.center());
    ASSERT_EQ(chosen.count(), 1);
    EXPECT_EQ(chosen.last().at(0).toInt(), 20000);
    EXPECT_EQ(chosen.last().at(1).toInt(), 20001);
}

TEST_F(WindowTest, AChipSelectsItsQueryAndShiftClickOrADragSeveral)
{
    // Encoder self-attention over the source: its chips are the queries (and the keys).
    TokenChips* chips = window->controls()->sourceField()->chips();
    HeadSelection* selection = window->selection();
    QTest::mouseClick(chips, Qt::LeftButton, {}, chips->chipRect(1).center());
    EXPECT_EQ(selection->queryRow(), 1);
    EXPECT_FALSE(selection->hasQuerySpan());
    QTest::mouseClick(chips, Qt::LeftButton, Qt::ShiftModifier, chips->chipRect(4).center());
    EXPECT_EQ(selection->queryRow(), 1);
    EXPECT_EQ(selection->querySpanEnd(), 5);

    QTest::mousePress(chips, Qt::LeftButton, {}, chips->chipRect(5).center());
    QMouseEvent move(QEvent::MouseMove, chips->chipRect(2).center(), chips->mapToGlobal(chips->chipRect(2).center()),
                     Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(chips, &move);
    QTest::mouseRelease(chips, Qt::LeftButton, {}, chips->chipRect(2).center());
    EXPECT_EQ(selection->queryRow(), 2);
    EXPECT_EQ(selection->querySpanEnd(), 6);
}

TEST_F(WindowTest, InCrossAttentionTheSourcesChipsChooseTheKey)
{
    qkv::Config config = smallConfig();
    config.mode = qkv::AttentionMode::Cross;  // queries from the target, keys from the source
    setConfig(config);
    HeadSelection* selection = window->selection();
    selection->setCell(1, 0);
    TokenChips* source = window->controls()->sourceField()->chips();
    QTest::mouseClick(source, Qt::LeftButton, {}, source->chipRect(3).center());
    EXPECT_EQ(selection->keyColumn(), 3);
    EXPECT_EQ(selection->queryRow(), 1);
    TokenChips* target = window->controls()->targetField()->chips();
    QTest::mouseClick(target, Qt::LeftButton, {}, target->chipRect(0).center());
    EXPECT_EQ(selection->queryRow(), 0);
    EXPECT_EQ(selection->keyColumn(), 3);
}

// From the keyboard: Right and Left choose the next and previous token, Shift extends from the
// last one chosen, Home and End go to the ends; a choice made elsewhere is where they go on from.
TEST_F(WindowTest, TheKeyboardChoosesTokensAsAClickDoes)
{
    TokenChips* chips = window->controls()->sourceField()->chips();
    HeadSelection* selection = window->selection();
    EXPECT_TRUE(chips->focusPolicy() & Qt::TabFocus);
    EXPECT_FALSE(chips->accessibleName().isEmpty());
    selection->setCell(2, 0);  // a heatmap's choice
    QTest::keyClick(chips, Qt::Key_Right);
    EXPECT_EQ(selection->queryRow(), 3);
    EXPECT_FALSE(selection->hasQuerySpan());
    QTest::keyClick(chips, Qt::Key_Right, Qt::ShiftModifier);
    QTest::keyClick(chips, Qt::Key_Right, Qt::ShiftModifier);
    EXPECT_EQ(selection->queryRow(), 3);
    EXPECT_EQ(selection->querySpanEnd(), 6);
    QTest::keyClick(chips, Qt::Key_Left);
    EXPECT_EQ(selection->queryRow(), 4);
    EXPECT_FALSE(selection->hasQuerySpan());
    QTest::keyClick(chips, Qt::Key_End);
    EXPECT_EQ(selection->queryRow(), chips->tokens().size() - 1);
    QTest::keyClick(chips, Qt::Key_Home);
    EXPECT_EQ(selection->queryRow(), 0);
    QTest::keyClick(chips, Qt::Key_Left);  // no further than the first
    EXPECT_EQ(selection->queryRow(), 0);
}

}  // namespace
}  // namespace qkv::ui::testing
