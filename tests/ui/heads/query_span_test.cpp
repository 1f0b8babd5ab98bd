// Several queries selected together (a span, BertViz #125): typed in the Heads tab as first:end,
// or by shift-click or a drag over the grid's rows; the detail beneath the grid draws the span's
// mean row and each key's largest weight; the session keeps the span.

#include <QLineEdit>
#include <QTest>

#include "core/analysis/span_row.hpp"
#include "tests/ui/support/wait_until.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/heads/long_layer_detail.hpp"
#include "ui/mainwindow/view_tabs.hpp"

namespace qkv::ui::testing {
namespace {

class QuerySpanTest : public WindowTest {
protected:
    HeadsView* heads() const { return window->tabs()->headsView(); }
    QLineEdit* queriesBox() const { return heads()->findChild<QLineEdit*>(); }
    void type(const QString& text)
    {
        queriesBox()->setFocus();
        queriesBox()->selectAll();
        QTest::keyClicks(queriesBox(), text);
        QTest::keyClick(queriesBox(), Qt::Key_Return);
        QCoreApplication::processEvents();
    }
};

TEST_F(QuerySpanTest, ATypedSpanIsSelectedAndItsMeanRowDrawnBeneathTheGrid)
{
    ASSERT_NE(queriesBox(), nullptr);
    window->selection()->setHead(1);
    type(QStringLiteral("1:5"));
    EXPECT_EQ(window->selection()->queryRow(), 1);
    EXPECT_EQ(window->selection()->querySpanEnd(), 5);
    EXPECT_EQ(window->document()->viewOptions().querySpanEnd, 5);  // the session keeps it
    LongLayerDetail* detail = heads()->longLayerDetail();
    EXPECT_TRUE(detail->isVisible());
    ASSERT_TRUE(waitUntil([&] { return !detail->isBusy() && detail->shownRow(); }));
    const auto expected = spanAttentionRow(*window->document()->result(), 1, 1, 5);
    ASSERT_TRUE(expected.ok()) << expected.error();
    ASSERT_EQ(detail->shownRow()->weights.size(), expected->mean.size());
    for (std::size_t j = 0; j < expected->mean.size(); ++j) {
        EXPECT_FLOAT_EQ(detail->shownRow()->weights[j], static_cast<float>(expected->mean[j]));
        EXPECT_EQ(detail->shownRow()->maxima[j], expected->maximum[j]);
    }
    // Every panel outlines the span's rows.
    const HeadsFigureState state = heads()->canvas()->paintState();
    EXPECT_EQ(state.spanFirstRow, 1);
    EXPECT_EQ(state.spanEndRow, 5);

    // One query again: the detail goes (the grid shows a held layer's cells).
    type(QStringLiteral("3"));
    EXPECT_FALSE(window->selection()->hasQuerySpan());
    EXPECT_EQ(window->selection()->queryRow(), 3);
    EXPECT_EQ(window->document()->viewOptions().querySpanEnd, 0);
    EXPECT_FALSE(detail->isVisible());
}

TEST_F(QuerySpanTest, ASpanThatIsNotOneIsSaidAtTheFieldAndTheSelectionStays)
{
    window->selection()->setCell(2, 1);
    for (const QString& bad : {QStringLiteral("4:2"), QStringLiteral("0:99"), QStringLiteral("x"), QStringLiteral("<b>1")}) {
        type(bad);
        EXPECT_EQ(window->selection()->queryRow(), 2) << bad.toStdString();
        EXPECT_FALSE(window->selection()->hasQuerySpan()) << bad.toStdString();
        EXPECT_FALSE(queriesBox()->styleSheet().isEmpty()) << bad.toStdString();
        EXPECT_TRUE(queriesBox()->toolTip().contains(bad.toHtmlEscaped())) << queriesBox()->toolTip().toStdString();
    }
    type(QStringLiteral("0:2"));
    EXPECT_TRUE(queriesBox()->styleSheet().isEmpty());
    EXPECT_EQ(window->selection()->querySpanEnd(), 2);
}

TEST_F(QuerySpanTest, ShiftClickAndADragOverRowsSelectThemTogether)
{
    HeadsCanvas* canvas = heads()->canvas();
    QTest::mouseClick(canvas, Qt::LeftButton, {}, canvas->cellCenter(0, 1, 2));
    QTest::mouseClick(canvas, Qt::LeftButton, Qt::ShiftModifier, canvas->cellCenter(0, 4, 2));
    EXPECT_EQ(window->selection()->queryRow(), 1);
    EXPECT_EQ(window->selection()->querySpanEnd(), 5);
    EXPECT_EQ(queriesBox()->text(), QStringLiteral("1:5"));

    // A plain click: one query again; a drag from row 4 up to row 2.
    QTest::mouseClick(canvas, Qt::LeftButton, {}, canvas->cellCenter(0, 0, 0));
    EXPECT_FALSE(window->selection()->hasQuerySpan());
    QTest::mousePress(canvas, Qt::LeftButton, {}, canvas->cellCenter(1, 4, 0));
    QMouseEvent move(QEvent::MouseMove, canvas->cellCenter(1, 2, 0), canvas->mapToGlobal(canvas->cellCenter(1, 2, 0)),
                     Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(canvas, &move);
    QTest::mouseRelease(canvas, Qt::LeftButton, {}, canvas->cellCenter(1, 2, 0));
    EXPECT_EQ(window->selection()->queryRow(), 2);
    EXPECT_EQ(window->selection()->querySpanEnd(), 5);
}

}  // namespace
}  // namespace qkv::ui::testing
