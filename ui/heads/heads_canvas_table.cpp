// The Heads grid as screen readers read it (heads_canvas.hpp; ui/accessibility/cell_table.hpp).

#include <algorithm>
#include <utility>

#include "ui/accessibility/accessible_cell_table.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/heads/cell_tooltip.hpp"
#include "ui/heads/heads_canvas.hpp"

namespace qkv::ui {

int HeadsCanvas::accessiblePanel() const
{
    if (!figure_ || figure_->panelCount() == 0) return -1;
    return std::clamp(selection_->head(), 0, figure_->panelCount() - 1);
}

void HeadsCanvas::makeAccessibleTable()
{
    // One table, the selected head's map, rather than one table per head: the arrow keys move
    // within the selected head's map and the head box (or a click) picks the head, so the
    // reader's table is the map the keyboard is in; every cell's name says its head, so a
    // reader never mistakes one head's weight for another's. Choosing another head announces
    // the same cell of the new head.
    CellTable table;
    table.caption = [this] {
        const int panel = accessiblePanel();
        if (panel < 0) return tr("Attention heads: computing");
        const int head = figure_->headOfPanel(panel);
        const QString title = head >= 0 ? tr("Head %1").arg(head + 1) : tr("Average of heads");
        return tr("%1 of %2 heads: queries on rows, keys on columns").arg(title).arg(figure_->panelCount());
    };
    table.rowCount = [this] { return accessiblePanel() >= 0 ? figure_->rows() : 0; };
    table.columnCount = [this] { return accessiblePanel() >= 0 ? figure_->columns() : 0; };
    table.rowHeader = [this](int row) { return row < figure_->rowLabels().size() ? figure_->rowLabels()[row] : QString(); };
    table.columnHeader = [this](int column) {
        return column < figure_->columnLabels().size() ? figure_->columnLabels()[column] : QString();
    };
    table.cellName = [this](int row, int column) {
        const int head = figure_->headOfPanel(accessiblePanel());
        if (figure_->pooled())
            return pooledCellSentence(*figure_->result(), head, row, column, figure_->rowPositions(row),
                                      figure_->columnPositions(column));
        return cellSentence(*figure_->result(), head, row, column, figure_->valueNorms());
    };
    table.cellDescription = [this](int row, int column) {
        return plainTextOfToolTip(cellTip(accessiblePanel(), row, column));
    };
    table.currentCell = [this] {
        if (accessiblePanel() < 0) return TableCell{};
        return TableCell{figure_->rowOfPosition(selection_->queryRow()), figure_->columnOfPosition(selection_->keyColumn())};
    };
    table.cellRect = [this](int row, int column) { return cellRect(accessiblePanel(), row, column); };
    setAccessibleCellTable(this, std::move(table));
}

}  // namespace qkv::ui
