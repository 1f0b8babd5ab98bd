#include "ui/costs/cost_table.hpp"

#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLocale>

#include <algorithm>
#include <set>
#include <string>

namespace qkv::ui {

namespace {

std::vector<CostRow> costRows(const CostShape& shape)
{
    std::vector<CostRow> rows;
    const LayerShape current = shape.layer(HeadLayout::Factored, shape.keyValueHeads, shape.withBias);
    Expected<std::vector<CostRow>> table = costTable(current, std::max<Count>(shape.n_q, 1), std::max<Count>(shape.n_k, 1));
    if (table) {
        rows = std::move(table).value();
    } else {
        rows.push_back({CostTableWidget::tr("cost model").toStdString(), table.error(), 0});
    }
    struct Kind {
        const char* name;
        HeadLayout layout;
        Count g;
    };
    const Kind kinds[] = {{"standard (g = h)", HeadLayout::Factored, shape.heads},
                          {"full W_i per head", HeadLayout::FullBilinear, shape.heads},
                          {"unreduced (d_k = d_model)", HeadLayout::Unreduced, shape.heads},
                          {"MQA (g = 1)", HeadLayout::Factored, 1},
                          {"GQA/MHA with the chosen g", HeadLayout::Factored, shape.keyValueHeads}};
    for (const Kind& kind : kinds) {
        for (const bool bias : {false, true}) {
            const std::vector<CostRow> layer = layerParameterRows(shape.layer(kind.layout, kind.g, bias));
            if (layer.empty()) {
                continue;
            }
            CostRow total = layer.back();  // the "total" row
            total.name = std::string("layer total, ") + kind.name + ", g = " + std::to_string(kind.g) +
                         (bias ? ", with biases" : ", without biases");
            rows.push_back(std::move(total));
        }
    }
    return rows;
}

}  // namespace

CostTableWidget::CostTableWidget(QWidget* parent) : QTableWidget(parent)
{
    setColumnCount(3);
    setHorizontalHeaderLabels({tr("Quantity"), tr("Formula (cost model)"), tr("Value")});
    setAccessibleName(tr("Cost of each quantity"));
    // Tab leaves the table (arrow keys move between its cells): a table of many cells is no trap.
    setTabKeyNavigation(false);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setAlternatingRowColors(true);
    setWordWrap(false);
    verticalHeader()->setVisible(false);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    horizontalHeader()->setSectionResizeMode(0, QHeaderView::Interactive);
    horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    horizontalHeader()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    setToolTip(tr("Ctrl+C copies the selected rows as tab-separated text"));
}

void CostTableWidget::setShape(const CostShape& shape) { setRows(costRows(shape)); }

void CostTableWidget::setRows(const std::vector<CostRow>& rows)
{
    rows_ = rows;
    setRowCount(static_cast<int>(rows_.size()));
    const QLocale locale;
    for (int r = 0; r < rowCount(); ++r) {
        const CostRow& row = rows_[static_cast<std::size_t>(r)];
        auto* name = new QTableWidgetItem(QString::fromStdString(row.name));
        auto* formula = new QTableWidgetItem(QString::fromStdString(row.formula));
        formula->setToolTip(formula->text());
        name->setToolTip(name->text());
        // Grouped digits on screen; the exact digits in the copy.
        auto* value = new QTableWidgetItem(locale.toString(static_cast<qlonglong>(row.value)));
        value->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        setItem(r, 0, name);
        setItem(r, 1, formula);
        setItem(r, 2, value);
    }
    if (columnWidth(0) < 200) {
        resizeColumnToContents(0);
        setColumnWidth(0, std::min(columnWidth(0), 360));
    }
}

QString CostTableWidget::copyText(bool selectedOnly) const
{
    std::set<int> chosen;
    if (selectedOnly) {
        for (const QModelIndex& index : selectionModel()->selectedRows()) {
            chosen.insert(index.row());
        }
    } else {
        for (int r = 0; r < static_cast<int>(rows_.size()); ++r) {
            chosen.insert(r);
        }
    }
    QString text = tr("quantity") + QLatin1Char('\t') + tr("formula") + QLatin1Char('\t') + tr("value") +
                   QLatin1Char('\n');
    for (const int r : chosen) {
        const CostRow& row = rows_[static_cast<std::size_t>(r)];
        text += QString::fromStdString(row.name) + QLatin1Char('\t') + QString::fromStdString(row.formula) +
                QLatin1Char('\t') + QString::number(row.value) + QLatin1Char('\n');
    }
    return text;
}

void CostTableWidget::copyToClipboard() const
{
    const bool anySelected = selectionModel() && selectionModel()->hasSelection();
    QApplication::clipboard()->setText(copyText(anySelected));
}

void CostTableWidget::keyPressEvent(QKeyEvent* event)
{
    if (event->matches(QKeySequence::Copy)) {
        QApplication::clipboard()->setText(copyText(true));
        event->accept();
        return;
    }
    QTableWidget::keyPressEvent(event);
}

}  // namespace qkv::ui
