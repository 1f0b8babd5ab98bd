#pragma once
// The cost model's rows (name | formula | value) in a table, copyable: Ctrl+C copies the
// selected rows as tab-separated text (with a header line), the view's Copy button all rows.

#include <QTableWidget>

#include <vector>

#include "core/cost/cost_model.hpp"
#include "ui/costs/cost_shape.hpp"

namespace qkv::ui {

class CostTableWidget : public QTableWidget {
    Q_OBJECT
public:
    explicit CostTableWidget(QWidget* parent = nullptr);

    void setRows(const std::vector<CostRow>& rows);
    // The cost model's table for the current layer (g = shape.keyValueHeads), then the
    // whole-layer totals of the layer chart, each with its formula.
    void setShape(const CostShape& shape);
    const std::vector<CostRow>& rows() const { return rows_; }

    // "quantity\tformula\tvalue" then one line per row; the selected rows only, or all.
    QString copyText(bool selectedOnly) const;
    // Puts copyText() on the clipboard: the selection when there is one, else every row.
    void copyToClipboard() const;

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    std::vector<CostRow> rows_;
};

}  // namespace qkv::ui
