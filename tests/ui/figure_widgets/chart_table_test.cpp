// A chart's numbers as a table: the rows and headers ChartTableModel lays out of bar, line and
// scattered charts, what Copy puts on the clipboard, the dialog as assistive technology sees it
// (a table with column headers), and Show as Table on a ChartView and on the Train tab's curves.

#include <gtest/gtest.h>

#include <QAccessible>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QTableView>

#include "ui/figure_widgets/chart_table.hpp"
#include "ui/figure_widgets/chart_view.hpp"
#include "ui/train/curve_chart.hpp"

namespace qkv::ui {
namespace {

ChartModel parameterBars()
{
    ChartModel m;
    m.title = QStringLiteral("Parameters of one layer");
    m.categories = {QStringLiteral("W^Q"), QStringLiteral("W^K"), QStringLiteral("W^O")};
    m.horizontalBars = true;
    m.y.title = QStringLiteral("tensor");
    m.x.title = QStringLiteral("parameters");
    ChartSeries full = ChartSeries::of(QStringLiteral("full"), Qt::blue, ChartSeries::Kind::Bars);
    full.values = {4096, 4096, 12288};
    ChartSeries shared = ChartSeries::of(QStringLiteral("shared keys"), Qt::red, ChartSeries::Kind::Bars);
    shared.values = {4096, 1024.5, 0.125};
    m.series = {full, shared};
    return m;
}

ChartModel twoCurves()
{
    ChartModel m;
    m.title = QStringLiteral("Loss");
    m.x.title = QStringLiteral("step");
    m.y.title = QStringLiteral("loss");
    ChartSeries training = ChartSeries::of(QStringLiteral("training"), Qt::blue, ChartSeries::Kind::Line);
    training.points = {{1, 2.5}, {2, 2.0}, {3, 1.75}};
    ChartSeries heldOut = ChartSeries::of(QStringLiteral("held-out"), Qt::red, ChartSeries::Kind::Points);
    heldOut.points = {{3, 1.9}, {0, 2.75}};  // not in x order, and x = 0 has no training point
    m.series = {training, heldOut};
    return m;
}

QString header(const ChartTableModel& t, int column) { return t.headerData(column, Qt::Horizontal).toString(); }

TEST(ChartTable, BarChartsHaveARowPerCategoryAndAColumnPerSeries)
{
    const ChartModel chart = parameterBars();
    const ChartTableModel table(chart);
    ASSERT_EQ(table.rowCount(), chart.categories.size());
    ASSERT_EQ(table.columnCount(), 1 + static_cast<int>(chart.series.size()));
    // Horizontal bars: the categories are on y, the values on x; headers name both.
    EXPECT_EQ(header(table, 0), chart.y.title);
    EXPECT_EQ(header(table, 1), QStringLiteral("full (parameters)"));
    EXPECT_EQ(header(table, 2), QStringLiteral("shared keys (parameters)"));
    for (int r = 0; r < table.rowCount(); ++r) {
        EXPECT_EQ(table.data(table.index(r, 0)).toString(), chart.categories[r]);
        for (int s = 0; s < 2; ++s)
            EXPECT_DOUBLE_EQ(table.data(table.index(r, s + 1), Qt::UserRole).toDouble(),
                             chart.series[static_cast<std::size_t>(s)].values[static_cast<std::size_t>(r)]);
    }
    EXPECT_EQ(table.data(table.index(2, 1)).toString(), QStringLiteral("12,288"));  // read as on the bar
}

TEST(ChartTable, LineChartsHaveARowPerDistinctXAscending)
{
    const ChartTableModel table(twoCurves());
    ASSERT_EQ(table.columnCount(), 3);
    EXPECT_EQ(header(table, 0), QStringLiteral("step"));
    EXPECT_EQ(header(table, 1), QStringLiteral("training (loss)"));
    ASSERT_EQ(table.rowCount(), 4);  // x = 0, 1, 2, 3
    const double xs[] = {0, 1, 2, 3};
    for (int r = 0; r < 4; ++r) EXPECT_DOUBLE_EQ(table.data(table.index(r, 0), Qt::UserRole).toDouble(), xs[r]);
    // x = 0: only the held-out point; an absent value is empty, and read as "no value".
    EXPECT_FALSE(table.data(table.index(0, 1), Qt::UserRole).isValid());
    EXPECT_TRUE(table.data(table.index(0, 1)).toString().isEmpty());
    EXPECT_FALSE(table.data(table.index(0, 1), Qt::AccessibleTextRole).toString().isEmpty());
    EXPECT_DOUBLE_EQ(table.data(table.index(0, 2), Qt::UserRole).toDouble(), 2.75);
    EXPECT_DOUBLE_EQ(table.data(table.index(3, 1), Qt::UserRole).toDouble(), 1.75);
    EXPECT_DOUBLE_EQ(table.data(table.index(3, 2), Qt::UserRole).toDouble(), 1.9);
}

TEST(ChartTable, TinyValuesAreNotWrittenAsZero)
{
    ChartModel m = twoCurves();
    m.series[0].points = {{0, 3.4e-14}, {1, -2.5e-9}};
    const ChartTableModel table(m);
    for (int r = 0; r < 2; ++r) {
        const QString shown = table.data(table.index(r, 1)).toString();
        EXPECT_NE(shown, QStringLiteral("0")) << shown.toStdString();
        EXPECT_FALSE(shown.isEmpty());
    }
    const QStringList lines = table.tabSeparated().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    ASSERT_GE(lines.size(), 2);
    EXPECT_DOUBLE_EQ(lines[1].split(QLatin1Char('\t'))[1].toDouble(), 3.4e-14);
}

TEST(ChartTable, CopyIsTabSeparatedWithHeadersAndEveryDigit)
{
    const ChartTableModel table(parameterBars());
    const QStringList lines = table.tabSeparated().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    ASSERT_EQ(lines.size(), 4);
    EXPECT_EQ(lines[0], QStringLiteral("tensor\tfull (parameters)\tshared keys (parameters)"));
    EXPECT_EQ(lines[2], QStringLiteral("W^K\t4096\t1024.5"));  // no grouping: a spreadsheet reads it
    const QStringList last = lines[3].split(QLatin1Char('\t'));
    ASSERT_EQ(last.size(), 3);
    EXPECT_DOUBLE_EQ(last[2].toDouble(), 0.125);
}

TEST(ChartTable, TheDialogIsATableWithColumnHeadersForAssistiveTechnology)
{
    ChartTableDialog dialog(twoCurves());
    dialog.show();
    QAccessibleInterface* table = QAccessible::queryAccessibleInterface(dialog.table());
    ASSERT_NE(table, nullptr);
    EXPECT_EQ(table->role(), QAccessible::Table);
    EXPECT_FALSE(table->text(QAccessible::Name).isEmpty());
    QAccessibleTableInterface* cells = table->tableInterface();
    ASSERT_NE(cells, nullptr);
    EXPECT_EQ(cells->rowCount(), 4);
    EXPECT_EQ(cells->columnCount(), 3);
    QAccessibleInterface* cell = cells->cellAt(3, 1);
    ASSERT_NE(cell, nullptr);
    EXPECT_EQ(cell->text(QAccessible::Name), QStringLiteral("1.75"));
    QAccessibleTableCellInterface* asCell = cell->tableCellInterface();
    ASSERT_NE(asCell, nullptr);
    const QList<QAccessibleInterface*> headers = asCell->columnHeaderCells();
    ASSERT_EQ(headers.size(), 1);
    EXPECT_EQ(headers.front()->text(QAccessible::Name), QStringLiteral("training (loss)"));
    // Qt 6.4's QTableView cell makes its header cells with new and registers none (a FIXME in
    // qaccessibletable.cpp): hand them to the cache, which deletes them, or LeakSanitizer reports them.
    for (QAccessibleInterface* header : headers)
        QAccessible::deleteAccessibleInterface(QAccessible::registerAccessibleInterface(header));

    dialog.copy();
    EXPECT_EQ(QApplication::clipboard()->text(), dialog.model()->tabSeparated());
}

TEST(ChartTable, AChartViewShowsItsModelAsATable)
{
    QWidget window;
    auto* view = new ChartView(&window);
    view->setModel(parameterBars());
    window.show();
    QAction* action = showAsTableActionFor(view);
    ASSERT_NE(action, nullptr);
    EXPECT_FALSE(action->text().isEmpty());
    EXPECT_EQ(chartTableSources(&window), QList<QWidget*>{view});
    action->trigger();
    const QList<ChartTableDialog*> dialogs = view->findChildren<ChartTableDialog*>();
    ASSERT_EQ(dialogs.size(), 1);
    EXPECT_TRUE(dialogs.front()->isVisible());
    EXPECT_EQ(dialogs.front()->model()->chart(), parameterBars());
    dialogs.front()->close();  // deleted when closed
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    EXPECT_TRUE(view->findChildren<ChartTableDialog*>().isEmpty());
}

TEST(ChartTable, TrainingCurvesAreListedAsDrawn)
{
    CurveChart chart(QString(), QStringLiteral("held-out accuracy"), true);
    Curve curve{QStringLiteral("factored"), Qt::blue, Qt::SolidLine, {{0, 0.25}, {10, 0.5}, {20, 0.875}}, false};
    chart.setCurves({curve}, 20);
    const ChartModel model = chart.tableModel();
    ASSERT_EQ(model.series.size(), 1u);
    EXPECT_EQ(model.series[0].points, chart.drawnPoints(QStringLiteral("factored")));
    const ChartTableModel table(model);
    ASSERT_EQ(table.rowCount(), 3);
    EXPECT_DOUBLE_EQ(table.data(table.index(2, 1), Qt::UserRole).toDouble(), 87.5);  // percent, as drawn
    EXPECT_TRUE(header(table, 1).contains(QStringLiteral("%")));
    ASSERT_NE(showAsTableActionFor(&chart), nullptr);
}

}  // namespace
}  // namespace qkv::ui
