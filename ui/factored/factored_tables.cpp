#include "ui/factored/factored_tables.hpp"

#include <QCoreApplication>

#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"

namespace qkv::ui {
namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::FactoredTables)
};

}  // namespace

CellTable factorProductTable(ShownFactoredModel shown)
{
    const auto valid = [shown] {
        const FactoredHeadModel* model = shown();
        return model && model->valid() ? model : nullptr;
    };
    CellTable table;
    table.caption = [valid] {
        const FactoredHeadModel* model = valid();
        return model ? Text::tr("W_%1 = W_%1^Q (W_%1^K)^T of %2, %3 × %3: rows and columns are model dimensions")
                           .arg(model->head + 1)
                           .arg(headName(model->head))
                           .arg(model->d_model)
                     : Text::tr("W_i: no head to factor");
    };
    table.rowCount = [valid] { return valid() ? static_cast<int>(valid()->d_model) : 0; };
    table.columnCount = [valid] { return valid() ? static_cast<int>(valid()->d_model) : 0; };
    table.rowHeader = [](int row) { return Text::tr("row %1").arg(row); };
    table.columnHeader = [](int column) { return Text::tr("column %1").arg(column); };
    table.cellName = [valid](int row, int column) {
        const FactoredHeadModel& model = *valid();
        // W_i[row, column] = sum over d_k of W_i^Q[row, :] * W_i^K[column, :].
        const double entry = model.factored->left().row(row).dot(model.factored->right().row(column));
        return Text::tr("W_%1 [%2, %3]: %4").arg(model.head + 1).arg(row).arg(column).arg(preciseNumber(entry));
    };
    table.currentCell = [] { return TableCell{}; };  // no keyboard cell: a drag zooms
    return table;
}

CellTable scoresBothWaysTable(ShownFactoredModel shown)
{
    const auto ready = [shown] {
        const FactoredHeadModel* model = shown();
        return model && model->valid() && model->scoresReady && model->result ? model : nullptr;
    };
    CellTable table;
    table.caption = [ready] {
        return ready() ? Text::tr("Scores of %1 both ways: queries on rows, keys on columns").arg(headName(ready()->head))
                       : Text::tr("Scores both ways: computing");
    };
    table.rowCount = [ready] { return ready() ? static_cast<int>(ready()->scores.full.rows()) : 0; };
    table.columnCount = [ready] { return ready() ? static_cast<int>(ready()->scores.full.cols()) : 0; };
    table.rowHeader = [ready](int row) { return tokenText(ready()->result->queryLabels, row); };
    table.columnHeader = [ready](int column) { return tokenText(ready()->result->keyLabels, column); };
    table.cellName = [ready](int row, int column) {
        const FactoredHeadModel& model = *ready();
        return Text::tr("query %1, key %2: X_q W_i X_kv^T %3, (X_q W_i^Q)(X_kv W_i^K)^T %4")
            .arg(tokenName(model.result->queryLabels, row), tokenName(model.result->keyLabels, column),
                 preciseNumber(model.scores.full(row, column)), preciseNumber(model.scores.factored(row, column)));
    };
    table.currentCell = [] { return TableCell{}; };
    return table;
}

}  // namespace qkv::ui
