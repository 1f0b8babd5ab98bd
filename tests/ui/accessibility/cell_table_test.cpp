// The one accessible interface on its own: a plain widget given a CellTable is a Table whose
// children, headers, current cell and events follow the callbacks, however large the table.

#include <QAccessible>
#include <QWidget>

#include "tests/ui/accessibility/accessibility_events.hpp"
#include "tests/ui/support/layer_test_support.hpp"
#include "ui/accessibility/accessible_cell_table.hpp"

namespace qkv::ui::testing {
namespace {

// A rows x columns table whose cell (r, c) is named "r:c" and whose current cell is `current`.
CellTable gridTable(const int& rows, const int& columns, const TableCell& current)
{
    CellTable table;
    table.caption = [] { return QStringLiteral("grid"); };
    table.rowCount = [&rows] { return rows; };
    table.columnCount = [&columns] { return columns; };
    table.rowHeader = [](int row) { return QStringLiteral("row %1").arg(row); };
    table.columnHeader = [](int column) { return QStringLiteral("column %1").arg(column); };
    table.cellName = [](int row, int column) { return QStringLiteral("%1:%2").arg(row).arg(column); };
    table.currentCell = [&current] { return current; };
    return table;
}

}  // namespace

TEST(CellTable, AWidgetWithATableIsATableOfCells)
{
    int rows = 3, columns = 4;
    TableCell current{1, 2};
    QWidget widget;
    widget.setAccessibleName(QStringLiteral("made before the table"));  // Qt caches a plain interface here
    setAccessibleCellTable(&widget, gridTable(rows, columns, current));
    QAccessibleInterface* iface = QAccessible::queryAccessibleInterface(&widget);
    ASSERT_NE(iface, nullptr);
    EXPECT_EQ(iface->role(), QAccessible::Table);
    EXPECT_EQ(iface->text(QAccessible::Name), QStringLiteral("grid"));
    ASSERT_EQ(iface->childCount(), 12);
    for (int index = 0; index < 12; ++index) {
        QAccessibleInterface* cell = iface->child(index);
        ASSERT_NE(cell, nullptr);
        EXPECT_EQ(cell->text(QAccessible::Name), QStringLiteral("%1:%2").arg(index / 4).arg(index % 4));
        EXPECT_EQ(iface->indexOfChild(cell), index);
        EXPECT_EQ(cell->parent(), iface);
        EXPECT_EQ(cell->tableCellInterface()->isSelected(), index == 1 * 4 + 2);
    }
    QAccessibleTableCellInterface* cell = iface->tableInterface()->cellAt(2, 3)->tableCellInterface();
    EXPECT_EQ(cell->rowHeaderCells().front()->text(QAccessible::Name), QStringLiteral("row 2"));
    EXPECT_EQ(cell->rowHeaderCells().front()->role(), QAccessible::RowHeader);
    EXPECT_EQ(cell->columnHeaderCells().front()->text(QAccessible::Name), QStringLiteral("column 3"));
    EXPECT_EQ(iface->tableInterface()->selectedCellCount(), 1);
    // The table reads the callbacks live: a smaller model leaves the old far cells invalid.
    QAccessibleInterface* far = iface->tableInterface()->cellAt(2, 3);
    rows = 2;
    EXPECT_FALSE(far->isValid());
    EXPECT_EQ(iface->tableInterface()->cellAt(2, 3), nullptr);
    EXPECT_EQ(iface->childCount(), 8);
}

TEST(CellTable, AHugeTableListsNoChildrenButReachesEveryCell)
{
    int rows = 4096, columns = 4096;
    TableCell current{4000, 4001};
    QWidget widget;
    setAccessibleCellTable(&widget, gridTable(rows, columns, current));
    QAccessibleInterface* iface = QAccessible::queryAccessibleInterface(&widget);
    EXPECT_EQ(iface->childCount(), 0);
    EXPECT_EQ(iface->tableInterface()->rowCount(), 4096);
    EXPECT_EQ(iface->tableInterface()->cellAt(4095, 17)->text(QAccessible::Name), QStringLiteral("4095:17"));
    EXPECT_EQ(iface->child(4000 * 4096 + 4001)->text(QAccessible::Name), QStringLiteral("4000:4001"));
}

TEST(CellTable, AnnouncingNeedsTheFocus)
{
    int rows = 3, columns = 4;
    TableCell current{1, 2};
    QWidget widget;
    widget.setFocusPolicy(Qt::StrongFocus);
    setAccessibleCellTable(&widget, gridTable(rows, columns, current));
    showAt(widget, QSize(200, 100));
    widget.clearFocus();
    ASSERT_FALSE(widget.hasFocus());
    AccessibilityEvents events;
    announceCurrentCell(&widget);
    EXPECT_TRUE(events.of(QAccessible::Focus, &widget).empty());  // not focused: a reader stays where it is
    widget.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&widget));
    widget.setFocus();
    ASSERT_TRUE(widget.hasFocus());
    current = {2, 0};
    announceCurrentCell(&widget);
    const auto focus = events.of(QAccessible::Focus, &widget);
    ASSERT_EQ(focus.size(), 1u);
    EXPECT_EQ(focus.front().child, 2 * 4 + 0);
    EXPECT_EQ(focus.front().name, QStringLiteral("2:0"));
    EXPECT_TRUE(QAccessible::queryAccessibleInterface(&widget)->focusChild()->state().focused);
}

}  // namespace qkv::ui::testing
