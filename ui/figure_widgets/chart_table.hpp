#pragma once
// A chart's numbers as a table, for everyone who cannot read them off the drawing (a screen
// reader sees a chart as one picture) or wants them exactly. One implementation for every chart:
// a chart is data already (ChartModel, ui/render/chart_model.hpp), and ChartTableModel lays any
// ChartModel out as rows and columns whose headers are the axis titles and series names.
//
//   bar charts:   one row per category; column 0 the category, then one column per series;
//   line/points:  one row per distinct x (the union over the series, ascending); column 0 x,
//                 then one column per series, empty where a series has no point at that x.
//
// A widget that draws a chart offers "Show as Table" through addShowAsTableAction: the action is in
// its context menu, and the window's View > Show Chart as Table (Ctrl+T) finds it from the focus.
// The dialog is a QTableView (accessible as a table natively) with Copy (tab-separated, headers
// first, numbers in full: what a spreadsheet reads).

#include <QAbstractTableModel>
#include <QDialog>

#include <functional>
#include <vector>

#include "ui/render/chart_model.hpp"

class QAction;
class QTabWidget;
class QTableView;

namespace qkv::ui {

class ChartTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit ChartTableModel(ChartModel chart, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    // DisplayRole: the number as read ("12,288", "0.4132"); Qt::UserRole: the number itself
    // (a double; invalid where a series has no point).
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    const ChartModel& chart() const { return chart_; }
    // The whole table as tab-separated lines, the header line first, numbers in full precision.
    QString tabSeparated() const;

private:
    struct Cell {
        bool present = false;
        double value = 0;
    };
    void layOutBars();
    void layOutPoints();
    QString valueHeader(const ChartSeries& series, const ChartAxis& axis) const;

    ChartModel chart_;
    QStringList headers_;
    QStringList rowNames_;          // bar charts: the categories; else empty (column 0 holds x)
    std::vector<std::vector<Cell>> rows_;  // rows x (columns - 1 for bar charts, columns otherwise)
};

// One table, or one page per chart when a figure draws several (the Steps tab's rows of bars).
class ChartTableDialog : public QDialog {
    Q_OBJECT
public:
    explicit ChartTableDialog(const ChartModel& chart, QWidget* parent = nullptr);
    explicit ChartTableDialog(const std::vector<ChartModel>& charts, QWidget* parent = nullptr);

    // The table shown now, and its model.
    QTableView* table() const;
    ChartTableModel* model() const;
    int tableCount() const { return static_cast<int>(tables_.size()); }
    QTableView* table(int index) const { return tables_.at(static_cast<std::size_t>(index)); }
    // Puts the table shown now on the clipboard (tabSeparated()).
    void copy();

private:
    QTableView* makeTable(const ChartModel& chart, QWidget* parent);

    std::vector<QTableView*> tables_;
    QTabWidget* pages_ = nullptr;
};

// What a screen reader calls the chart: its title, else what it plots ("loss by step").
QString chartAccessibleName(const ChartModel& chart);

// The dialog for `chart` (or `charts`), not modal, deleted when closed. Returns it (tests look inside).
ChartTableDialog* showChartTable(const ChartModel& chart, QWidget* parent);
ChartTableDialog* showChartTables(const std::vector<ChartModel>& charts, QWidget* parent);

// Gives `chartWidget` a "Show as Table" action (in its actions(), for its context menu) that
// opens the dialog on what `model` returns then. Returns the action (owned by the widget).
QAction* addShowAsTableAction(QWidget* chartWidget, std::function<ChartModel()> model);
// The same for a figure that draws several charts: one page each.
QAction* addShowAsTablesAction(QWidget* figureWidget, std::function<std::vector<ChartModel>()> charts);
// The "Show as Table" action of `widget` or of the nearest of its ancestors that has one, or null.
QAction* showAsTableActionFor(const QWidget* widget);
// Every visible widget inside `root` (itself included) that offers a table, in reading order
// of creation (the order findChildren gives).
QList<QWidget*> chartTableSources(QWidget* root);

}  // namespace qkv::ui
