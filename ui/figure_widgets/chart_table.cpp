#include "ui/figure_widgets/chart_table.hpp"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>

#include "ui/figures/number_format.hpp"

namespace qkv::ui {
namespace {

const char* const kTableActionName = "showAsTable";

// Exactly whole (counts are): a tolerance would write a rank tolerance of 3×10⁻¹⁴ as "0".
bool isWhole(double value) { return value == std::round(value) && std::abs(value) < 1e15; }

// As a person reads it: "12,288", "0.4132" (the precision of the charts' tooltips and captions).
QString shownNumber(double value) { return isWhole(value) ? groupedInteger(std::llround(value)) : preciseNumber(value); }

// As a spreadsheet reads it: no grouping, every digit a double keeps.
QString copiedNumber(double value)
{
    return isWhole(value) ? QString::number(std::llround(value)) : QString::number(value, 'g', 17);
}

QString cleaned(QString text) { return text.replace(QLatin1Char('\n'), QLatin1Char(' ')).simplified(); }

}  // namespace

ChartTableModel::ChartTableModel(ChartModel chart, QObject* parent)
    : QAbstractTableModel(parent), chart_(std::move(chart))
{
    if (chart_.isBarChart())
        layOutBars();
    else
        layOutPoints();
}

QString ChartTableModel::valueHeader(const ChartSeries& series, const ChartAxis& axis) const
{
    // The series' name with the quantity and unit it is measured in, when the chart has one series
    // per quantity ("loss: training (held-out loss)" would repeat itself, so only when different).
    // A table lists values, not where they are drawn: "(log scale)" says nothing here.
    static const QRegularExpression logScale(QStringLiteral("\\s*\\(log(arithmic)? scale\\)"));
    const QString name = cleaned(series.name), unit = cleaned(axis.title).remove(logScale);
    if (name.isEmpty()) return unit.isEmpty() ? tr("value") : unit;
    if (unit.isEmpty() || name.contains(unit, Qt::CaseInsensitive)) return name;
    return tr("%1 (%2)").arg(name, unit);
}

void ChartTableModel::layOutBars()
{
    // The category axis is x for vertical bars, y for horizontal ones; the value axis the other.
    const ChartAxis& categoryAxis = chart_.horizontalBars ? chart_.y : chart_.x;
    const ChartAxis& valueAxis = chart_.horizontalBars ? chart_.x : chart_.y;
    headers_ << (cleaned(categoryAxis.title).isEmpty() ? tr("category") : cleaned(categoryAxis.title));
    for (const ChartSeries& s : chart_.series) headers_ << valueHeader(s, valueAxis);
    rowNames_ = chart_.categories;
    rows_.assign(static_cast<std::size_t>(chart_.categories.size()), std::vector<Cell>(chart_.series.size()));
    for (std::size_t c = 0; c < chart_.series.size(); ++c) {
        const std::vector<double>& values = chart_.series[c].values;
        for (std::size_t r = 0; r < rows_.size() && r < values.size(); ++r) rows_[r][c] = {true, values[r]};
    }
}

void ChartTableModel::layOutPoints()
{
    headers_ << (cleaned(chart_.x.title).isEmpty() ? tr("x") : cleaned(chart_.x.title));
    static const QRegularExpression logScale(QStringLiteral("\\s*\\(log(arithmic)? scale\\)"));
    headers_.back().remove(logScale);
    for (const ChartSeries& s : chart_.series) headers_ << valueHeader(s, chart_.y);
    // One row per distinct x, ascending; a series' point lands in its row (the last one wins
    // where a series repeats an x, as the drawing shows it on top).
    std::map<double, std::vector<Cell>> byX;
    for (std::size_t c = 0; c < chart_.series.size(); ++c)
        for (const QPointF& p : chart_.series[c].points) {
            std::vector<Cell>& row = byX[p.x()];
            row.resize(chart_.series.size() + 1);
            row[0] = {true, p.x()};
            row[c + 1] = {true, p.y()};
        }
    rows_.reserve(byX.size());
    for (auto& [x, row] : byX) rows_.push_back(std::move(row));
}

int ChartTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ChartTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(headers_.size()); }

QVariant ChartTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
    const auto row = static_cast<std::size_t>(index.row());
    if (!rowNames_.isEmpty() && index.column() == 0) {
        if (role == Qt::DisplayRole || role == Qt::AccessibleTextRole) return rowNames_[index.row()];
        return {};
    }
    const std::size_t column = static_cast<std::size_t>(index.column()) - (rowNames_.isEmpty() ? 0 : 1);
    const Cell& cell = rows_[row][column];
    switch (role) {
    case Qt::DisplayRole:
        return cell.present ? shownNumber(cell.value) : QString();
    case Qt::AccessibleTextRole:
        // An empty cell is read as "no value", never skipped silently.
        return cell.present ? shownNumber(cell.value) : tr("no value");
    case Qt::UserRole:
        return cell.present ? QVariant(cell.value) : QVariant();
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant ChartTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole) return {};
    if (orientation == Qt::Horizontal) return section >= 0 && section < headers_.size() ? QVariant(headers_[section]) : QVariant();
    return section + 1;  // rows are numbered, as a spreadsheet's
}

QString ChartTableModel::tabSeparated() const
{
    QStringList lines{headers_.join(QLatin1Char('\t'))};
    for (int r = 0; r < rowCount(); ++r) {
        QStringList fields;
        for (int c = 0; c < columnCount(); ++c) {
            const QVariant value = data(index(r, c), Qt::UserRole);
            fields << (value.isValid() ? copiedNumber(value.toDouble()) : data(index(r, c)).toString());
        }
        lines << fields.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

ChartTableDialog::ChartTableDialog(const ChartModel& chart, QWidget* parent)
    : ChartTableDialog(std::vector<ChartModel>{chart}, parent)
{
}

ChartTableDialog::ChartTableDialog(const std::vector<ChartModel>& charts, QWidget* parent) : QDialog(parent)
{
    const QString title = charts.empty() ? tr("Chart") : chartAccessibleName(charts.front());
    setWindowTitle(tr("%1 — as a table").arg(title));
    auto* layout = new QVBoxLayout(this);
    if (charts.size() <= 1) {
        auto* heading = new QLabel(title, this);
        heading->setTextFormat(Qt::PlainText);
        heading->setWordWrap(true);
        QFont bold = heading->font();
        bold.setBold(true);
        heading->setFont(bold);
        layout->addWidget(heading);
        QTableView* table = makeTable(charts.empty() ? ChartModel{} : charts.front(), this);
        heading->setBuddy(table);
        layout->addWidget(table, 1);
    } else {
        pages_ = new QTabWidget(this);
        for (const ChartModel& chart : charts) pages_->addTab(makeTable(chart, pages_), chartAccessibleName(chart));
        layout->addWidget(pages_, 1);
    }

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* copyButton = buttons->addButton(tr("&Copy"), QDialogButtonBox::ActionRole);
    copyButton->setToolTip(tr("Copy the whole table, headers first, as tab-separated text"));
    connect(copyButton, &QPushButton::clicked, this, &ChartTableDialog::copy);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    // Wide enough for every column when there are few (a screen's worth at most), and the first
    // rows; the table scrolls beyond.
    int width = 0, height = 0;
    for (QTableView* table : tables_) {
        table->resizeColumnsToContents();
        const int widest = 20 * table->fontMetrics().averageCharWidth();  // a header of ~20 characters a line
        const QAbstractItemModel* model = table->model();
        for (int c = 0; c < model->columnCount(); ++c) {
            int cells = 0;  // the widest number (the first rows: a long curve's are alike)
            for (int r = 0; r < std::min(model->rowCount(), 500); ++r)
                cells = std::max(cells, table->fontMetrics().horizontalAdvance(model->index(r, c).data().toString()));
            table->setColumnWidth(c, std::min(table->columnWidth(c), std::max(widest, cells + 16)));
        }
        // Qt 6.4's header is one line high whatever its text: tall enough for the wrapped headers.
        QHeaderView* header = table->horizontalHeader();
        int lines = header->sizeHint().height();
        for (int c = 0; c < model->columnCount(); ++c) {
            const QRect wrapped = header->fontMetrics().boundingRect(
                QRect(0, 0, table->columnWidth(c) - 12, 10000), Qt::TextWordWrap,
                model->headerData(c, Qt::Horizontal).toString());
            lines = std::max(lines, wrapped.height() + 10);
        }
        header->setMinimumHeight(lines);
        int w = table->verticalHeader()->sizeHint().width() + 2 * table->frameWidth() + 24;
        for (int c = 0; c < table->model()->columnCount(); ++c) w += table->columnWidth(c);
        width = std::max(width, w);
        height = std::max(height, table->horizontalHeader()->sizeHint().height() + table->verticalHeader()->length() +
                                      2 * table->frameWidth() + 24);
    }
    // The rows whole when few (no empty space below two rows), up to a screenful; scrolled beyond.
    // Every page's tab shows (no scroll arrows hiding the last ones).
    if (pages_) width = std::max(width, pages_->tabBar()->sizeHint().width() + 8);
    const int chrome = layout->sizeHint().height() - (pages_ ? pages_->sizeHint().height() : table()->sizeHint().height());
    resize(std::clamp(width + 40, 420, 1100), std::clamp(height + chrome + (pages_ ? 40 : 0), 220, 640));
    if (QTableView* shown = table()) shown->setFocus();
}

QTableView* ChartTableDialog::makeTable(const ChartModel& chart, QWidget* parent)
{
    auto* model = new ChartTableModel(chart, this);
    auto* table = new QTableView(parent);
    table->setModel(model);
    const QString title = chartAccessibleName(chart);
    table->setAccessibleName(tr("%1, as a table").arg(title));
    table->setAccessibleDescription(
        tr("%n row(s); the column headers are the chart's axis titles and series", nullptr, model->rowCount()));
    table->setSelectionBehavior(QAbstractItemView::SelectItems);
    table->setAlternatingRowColors(true);
    table->setTabKeyNavigation(false);  // Tab goes on to Copy; arrow keys move between cells
    table->setWordWrap(false);
    // Long headers (a legend's sentence) wrap in a column of at most kWidestColumn pixels, so every
    // column shows at once; the numbers stay beside their row.
    table->horizontalHeader()->setDefaultAlignment(Qt::AlignCenter | Qt::Alignment(Qt::TextWordWrap));
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    table->horizontalHeader()->setStretchLastSection(false);
    table->verticalHeader()->setDefaultAlignment(Qt::AlignRight | Qt::AlignVCenter);
    tables_.push_back(table);
    return table;
}

QTableView* ChartTableDialog::table() const
{
    if (tables_.empty()) return nullptr;
    return pages_ ? tables_.at(static_cast<std::size_t>(std::max(0, pages_->currentIndex()))) : tables_.front();
}

ChartTableModel* ChartTableDialog::model() const
{
    QTableView* shown = table();
    return shown ? static_cast<ChartTableModel*>(shown->model()) : nullptr;
}

void ChartTableDialog::copy()
{
    if (ChartTableModel* shown = model()) QApplication::clipboard()->setText(shown->tabSeparated());
}

QString chartAccessibleName(const ChartModel& chart)
{
    if (!cleaned(chart.title).isEmpty()) return cleaned(chart.title);
    const ChartAxis& across = chart.isBarChart() && chart.horizontalBars ? chart.y : chart.x;
    const ChartAxis& up = chart.isBarChart() && chart.horizontalBars ? chart.x : chart.y;
    if (cleaned(up.title).isEmpty()) return ChartTableModel::tr("Chart");
    if (cleaned(across.title).isEmpty()) return cleaned(up.title);
    return ChartTableModel::tr("%1 by %2").arg(cleaned(up.title), cleaned(across.title));
}

ChartTableDialog* showChartTable(const ChartModel& chart, QWidget* parent)
{
    return showChartTables({chart}, parent);
}

ChartTableDialog* showChartTables(const std::vector<ChartModel>& charts, QWidget* parent)
{
    auto* dialog = new ChartTableDialog(charts, parent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
    return dialog;
}

QAction* addShowAsTableAction(QWidget* chartWidget, std::function<ChartModel()> model)
{
    return addShowAsTablesAction(chartWidget, [model = std::move(model)] { return std::vector<ChartModel>{model()}; });
}

QAction* addShowAsTablesAction(QWidget* chartWidget, std::function<std::vector<ChartModel>()> charts)
{
    auto* action = new QAction(ChartTableModel::tr("Show as &Table"), chartWidget);
    action->setObjectName(QString::fromLatin1(kTableActionName));
    action->setStatusTip(ChartTableModel::tr("The chart's numbers as a table, with Copy"));
    // No shortcut of its own: the window's Show Chart as Table (Ctrl+T) finds this action from
    // the focus, and two actions on one key would be ambiguous.
    QObject::connect(action, &QAction::triggered, chartWidget,
                     [chartWidget, charts = std::move(charts)] { showChartTables(charts(), chartWidget); });
    chartWidget->addAction(action);
    return action;
}

QAction* showAsTableActionFor(const QWidget* widget)
{
    for (; widget; widget = widget->parentWidget())
        for (QAction* action : widget->actions())
            if (action->objectName() == QLatin1String(kTableActionName)) return action;
    return nullptr;
}

QList<QWidget*> chartTableSources(QWidget* root)
{
    QList<QWidget*> sources;
    if (!root) return sources;
    QList<QWidget*> candidates{root};
    candidates += root->findChildren<QWidget*>();
    for (QWidget* w : candidates) {
        if (!w->isVisible()) continue;
        for (QAction* action : w->actions())
            if (action->objectName() == QLatin1String(kTableActionName)) {
                sources << w;
                break;
            }
    }
    return sources;
}

}  // namespace qkv::ui
