// Every heatmap is a table for screen readers (QAccessible, as AT-SPI and Orca read it): role
// Table, the tokens as row and column headers, each cell's name in words with its number, and an
// arrow key that moves the selected cell sends a focus event for the new cell.

#include <QAccessible>

#include <cmath>

#include "tests/ui/accessibility/accessibility_events.hpp"
#include "tests/ui/support/layer_test_support.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/compare/compare_view.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/heads/heads_view.hpp"

using qkv::ui::testing::AccessibilityEvents;
using qkv::ui::testing::WindowTest;

namespace {

QAccessibleTableInterface* tableOf(QWidget* widget)
{
    QAccessibleInterface* iface = QAccessible::queryAccessibleInterface(widget);
    return iface ? iface->tableInterface() : nullptr;
}

QString tokenAt(const std::vector<std::string>& labels, int index)
{
    return QString::fromStdString(labels[static_cast<std::size_t>(index)]);
}

// The headers a screen reader reads are the tokens, in order.
void expectTokenHeaders(QAccessibleTableInterface& table, const qkv::Result& result)
{
    ASSERT_EQ(table.rowCount(), static_cast<int>(result.queryLabels.size()));
    ASSERT_EQ(table.columnCount(), static_cast<int>(result.keyLabels.size()));
    for (int row = 0; row < table.rowCount(); ++row) EXPECT_EQ(table.rowDescription(row), tokenAt(result.queryLabels, row));
    for (int column = 0; column < table.columnCount(); ++column)
        EXPECT_EQ(table.columnDescription(column), tokenAt(result.keyLabels, column));
}

}  // namespace

TEST_F(WindowTest, HeadsMapIsATableOfTokens)
{
    qkv::ui::HeadsCanvas* canvas = window->headsView()->canvas();
    const auto result = window->document()->result();
    ASSERT_NE(result, nullptr);
    window->selection()->setHead(1);
    QAccessibleInterface* iface = QAccessible::queryAccessibleInterface(canvas);
    ASSERT_NE(iface, nullptr);
    EXPECT_EQ(iface->role(), QAccessible::Table);
    EXPECT_TRUE(iface->text(QAccessible::Name).contains(QStringLiteral("Head 2"))) << iface->text(QAccessible::Name).toStdString();
    QAccessibleTableInterface* table = iface->tableInterface();
    ASSERT_NE(table, nullptr);
    expectTokenHeaders(*table, *result);
    EXPECT_EQ(iface->childCount(), table->rowCount() * table->columnCount());
}

TEST_F(WindowTest, HeadsCellNameSaysHeadTokensAndWeight)
{
    qkv::ui::HeadsCanvas* canvas = window->headsView()->canvas();
    const auto result = window->document()->result();
    ASSERT_NE(result, nullptr);
    const int head = 1;
    window->selection()->setHead(head);
    QAccessibleTableInterface* table = tableOf(canvas);
    ASSERT_NE(table, nullptr);
    const qkv::MatrixF& weights = result->attention.heads[head].attention;
    for (int row = 0; row < table->rowCount(); ++row) {
        // The row's largest weight, found here by a plain loop.
        int largest = 0;
        for (int column = 1; column < table->columnCount(); ++column)
            if (weights(row, column) > weights(row, largest)) largest = column;
        for (int column = 0; column < table->columnCount(); ++column) {
            QAccessibleInterface* cell = table->cellAt(row, column);
            ASSERT_NE(cell, nullptr);
            EXPECT_EQ(cell->role(), QAccessible::Cell);
            const QString name = cell->text(QAccessible::Name);
            const QString expected = QStringLiteral("Head 2, query «%1» (position %2), key «%3» (position %4): weight %5 %")
                                         .arg(tokenAt(result->queryLabels, row))
                                         .arg(row)
                                         .arg(tokenAt(result->keyLabels, column))
                                         .arg(column)
                                         .arg(weights(row, column) * 100.0, 0, 'f', 1);
            EXPECT_TRUE(name.startsWith(expected)) << name.toStdString() << "\nexpected " << expected.toStdString();
            EXPECT_EQ(name.contains(QStringLiteral("(largest in its row)")), column == largest) << name.toStdString();
            // The description is the tooltip's text: the scores a sighted reader sees on hover.
            EXPECT_TRUE(cell->text(QAccessible::Description).contains(QStringLiteral("Raw score q·k")));
            QAccessibleTableCellInterface* cellTable = cell->tableCellInterface();
            ASSERT_NE(cellTable, nullptr);
            EXPECT_EQ(cellTable->rowIndex(), row);
            EXPECT_EQ(cellTable->columnIndex(), column);
            const QList<QAccessibleInterface*> headers = cellTable->columnHeaderCells();
            ASSERT_EQ(headers.size(), 1);
            EXPECT_EQ(headers.front()->text(QAccessible::Name), tokenAt(result->keyLabels, column));
            EXPECT_EQ(cell->parent(), QAccessible::queryAccessibleInterface(canvas));
        }
    }
}

TEST_F(WindowTest, ArrowKeyMovesTheAccessibleFocusToTheNewCell)
{
    qkv::ui::HeadsCanvas* canvas = window->headsView()->canvas();
    window->activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(window.get()));
    window->selection()->setHead(2);
    window->selection()->setCell(1, 1);
    canvas->setFocus();
    ASSERT_TRUE(canvas->hasFocus());
    QAccessibleTableInterface* table = tableOf(canvas);
    ASSERT_NE(table, nullptr);
    const QString expectedName = table->cellAt(1, 2)->text(QAccessible::Name);

    AccessibilityEvents events;
    QTest::keyClick(canvas, Qt::Key_Right);
    EXPECT_EQ(window->selection()->keyColumn(), 2);
    const auto focus = events.of(QAccessible::Focus, canvas);
    ASSERT_FALSE(focus.empty()) << "no focus event for the new cell";
    EXPECT_EQ(focus.back().child, 1 * table->columnCount() + 2);
    EXPECT_EQ(focus.back().role, QAccessible::Cell);
    EXPECT_EQ(focus.back().name, expectedName);
    EXPECT_TRUE(expectedName.startsWith(QStringLiteral("Head 3,"))) << expectedName.toStdString();
    // The focused cell says so, as a reader asks after the event.
    QAccessibleInterface* cell = table->cellAt(1, 2);
    EXPECT_TRUE(cell->state().focused);
    EXPECT_TRUE(cell->tableCellInterface()->isSelected());
    EXPECT_FALSE(table->cellAt(1, 1)->state().focused);
    EXPECT_EQ(QAccessible::queryAccessibleInterface(canvas)->focusChild(), cell);
}

TEST_F(WindowTest, NoFocusEventWhenTheSelectionMovesElsewhere)
{
    // A selection moved from another view must not pull a screen reader's focus into the map.
    qkv::ui::HeadsCanvas* canvas = window->headsView()->canvas();
    canvas->clearFocus();
    AccessibilityEvents events;
    window->selection()->setCell(2, 3);
    EXPECT_TRUE(events.of(QAccessible::Focus, canvas).empty());
}

namespace qkv::ui::testing {

TEST(CompareTable, PinnedMinusLiveIsATableOfTheSelectedHead)
{
    CompareView view(nullptr);
    showAt(view, QSize(1200, 800));
    qkv::Config config = crossConfig();
    view.setResult(computeResult(config));
    waitUntilIdle(view);
    view.pin();
    config.scales.query = 2.0f;
    const auto live = computeResult(config);
    view.setResult(live);
    waitUntilIdle(view);
    ASSERT_TRUE(view.difference() && view.difference()->ok());
    view.selection()->setHead(2);

    QAccessibleInterface* iface = QAccessible::queryAccessibleInterface(view.canvas());
    ASSERT_NE(iface, nullptr);
    EXPECT_EQ(iface->role(), QAccessible::Table);
    QAccessibleTableInterface* table = iface->tableInterface();
    ASSERT_NE(table, nullptr);
    expectTokenHeaders(*table, *live);
    const QString name = table->cellAt(3, 4)->text(QAccessible::Name);
    const double difference = view.difference()->differences[2](3, 4);
    EXPECT_TRUE(name.startsWith(QStringLiteral("Head 3, query «%1»").arg(tokenAt(live->queryLabels, 3)))) << name.toStdString();
    EXPECT_TRUE(name.contains(QStringLiteral("key «%1»").arg(tokenAt(live->keyLabels, 4)))) << name.toStdString();
    EXPECT_TRUE(name.endsWith(QStringLiteral("difference %1").arg(preciseNumber(difference)))) << name.toStdString();
    EXPECT_TRUE(table->cellAt(3, 4)->text(QAccessible::Description).contains(QStringLiteral("pinned")));
}

TEST(CompareTable, EachHeadMinusTheSelectedNamesEveryOtherHead)
{
    CompareView view(nullptr);
    showAt(view, QSize(1200, 800));
    view.setMode(CompareMode::HeadsMinusReference);
    const auto live = computeResult(selfConfig());
    view.setResult(live);
    waitUntilIdle(view);
    ASSERT_TRUE(view.difference() && view.difference()->ok());
    QAccessibleTableInterface* table = tableOf(view.canvas());
    ASSERT_NE(table, nullptr);
    expectTokenHeaders(*table, *live);
    const QString name = table->cellAt(0, 1)->text(QAccessible::Name);
    const qkv::Index reference = view.difference()->reference;
    for (qkv::Index head = 0; head < live->attention.headCount(); ++head)
        EXPECT_EQ(name.contains(QStringLiteral("Head %1 ").arg(head + 1)), head != reference) << name.toStdString();
}

}  // namespace qkv::ui::testing
