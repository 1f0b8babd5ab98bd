// A long layer's exact region as screen readers read it (long_layer_detail.hpp;
// ui/accessibility/cell_table.hpp).

#include <utility>

#include "ui/accessibility/accessible_cell_table.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/heads/long_layer_detail.hpp"

namespace qkv::ui {

void LongLayerDetail::makeAccessibleTable()
{
    // The region's positions, exact (its drawn blocks may be reduced; a reader gets every cell).
    const auto region = [this]() -> const ExactRegion* {
        if (!active() || !shownRegion_) return nullptr;
        const RegionBounds& b = shownRegion_->bounds;
        const bool fits = b.endRow <= static_cast<qkv::Index>(result_->queryLabels.size()) &&
                          b.endColumn <= static_cast<qkv::Index>(result_->keyLabels.size());
        return fits ? shownRegion_.get() : nullptr;  // a region of an earlier result: none
    };
    CellTable table;
    table.caption = [region] { return region() ? regionTitle(*region()) : tr("Exact region: none yet"); };
    table.rowCount = [region] { return region() ? static_cast<int>(region()->bounds.rows()) : 0; };
    table.columnCount = [region] { return region() ? static_cast<int>(region()->bounds.columns()) : 0; };
    table.rowHeader = [this, region](int row) {
        const qkv::Index position = region()->bounds.firstRow + row;
        return tr("%1 (position %2)").arg(tokenText(result_->queryLabels, position)).arg(position);
    };
    table.columnHeader = [this, region](int column) {
        const qkv::Index position = region()->bounds.firstColumn + column;
        return tr("%1 (position %2)").arg(tokenText(result_->keyLabels, position)).arg(position);
    };
    table.cellName = [this, region](int row, int column) {
        const ExactRegion& r = *region();
        // The region's tip is plain text already (its lines end in \n).
        const QString tip = regionToolTip(r, *result_, r.bounds.firstRow + row, r.bounds.firstColumn + column);
        return tr("%1, %2").arg(headName(r.head), tip.split(QLatin1Char('\n')).join(QStringLiteral("; ")));
    };
    table.currentCell = [this, region] {
        const ExactRegion* r = region();
        if (!r || !r->bounds.contains(selection_->queryRow(), selection_->keyColumn())) return TableCell{};
        return TableCell{static_cast<int>(selection_->queryRow() - r->bounds.firstRow),
                         static_cast<int>(selection_->keyColumn() - r->bounds.firstColumn)};
    };
    setAccessibleCellTable(this, std::move(table));
}

}  // namespace qkv::ui
