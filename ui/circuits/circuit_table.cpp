#include "ui/circuits/circuit_table.hpp"

#include <QHeaderView>
#include <QTableWidget>

#include <algorithm>

namespace qkv::ui {
namespace {

// Three significant digits: a QK score of 0.0123 and an OV logit of 12.3 both read.
QString valueText(double value) { return QString::number(value, 'g', 3).replace(QLatin1Char('-'), QChar(0x2212)); }

}  // namespace

QTableWidget* makeCircuitTable(QWidget* parent)
{
    auto* table = new QTableWidget(parent);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionMode(QAbstractItemView::NoSelection);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setWordWrap(false);
    table->setAlternatingRowColors(true);
    table->setTabKeyNavigation(false);  // Tab leaves the table; arrow keys move between its cells
    return table;
}

void fillCircuitTable(QTableWidget& table, const std::vector<qkv::TokenCircuit>& circuits, const QString& rowTitle,
                      const QString& valueName)
{
    std::size_t k = 0;
    for (const qkv::TokenCircuit& circuit : circuits) k = std::max(k, circuit.top.size());
    table.clear();
    table.setRowCount(static_cast<int>(circuits.size()));
    table.setColumnCount(static_cast<int>(k) + 1);
    QStringList headers{rowTitle};
    for (std::size_t i = 0; i < k; ++i) headers << QString::number(i + 1);
    table.setHorizontalHeaderLabels(headers);
    for (std::size_t r = 0; r < circuits.size(); ++r) {
        const qkv::TokenCircuit& circuit = circuits[r];
        auto* token = new QTableWidgetItem(QString::fromStdString(circuit.token));
        token->setToolTip(QObject::tr("token id %1").arg(circuit.id));
        QFont bold = token->font();
        bold.setBold(true);
        token->setFont(bold);
        table.setItem(static_cast<int>(r), 0, token);
        for (std::size_t i = 0; i < circuit.top.size(); ++i) {
            const qkv::VocabularyEntry& entry = circuit.top[i];
            auto* item = new QTableWidgetItem(
                QStringLiteral("%1  %2").arg(QString::fromStdString(entry.token), valueText(entry.value)));
            item->setToolTip(QObject::tr("«%1» (id %2): %3 %4")
                                 .arg(QString::fromStdString(entry.token))
                                 .arg(entry.id)
                                 .arg(valueName, QString::number(entry.value, 'g', 6)));
            table.setItem(static_cast<int>(r), static_cast<int>(i) + 1, item);
        }
    }
}

}  // namespace qkv::ui
