#pragma once
// A painted heatmap as a screen reader reads it: a table of rows and columns with their headers
// (query and key tokens, layers and heads, matrix indices), a sentence per cell saying what a
// sighted reader takes from it, and the cell the keyboard is on. A view fills it with callbacks
// that read its own model when asked (nothing is copied, so the table never goes stale); no
// widget type appears here, so any view, test or figure can fill one.
//
// Attach it to a widget with setAccessibleCellTable() (accessible_cell_table.hpp), or, for a
// FigureCanvas, FigureCanvas::setCellTable().

#include <QRectF>
#include <QString>

#include <functional>

namespace qkv::ui {

// A cell of the table: row and column from 0; -1 when there is none.
struct TableCell {
    int row = -1;
    int column = -1;
    bool valid() const { return row >= 0 && column >= 0; }
    friend bool operator==(const TableCell&, const TableCell&) = default;
};

struct CellTable {
    // What the whole table shows, e.g. "Head 2: attention weights" (empty: the widget's name).
    std::function<QString()> caption;
    std::function<int()> rowCount;
    std::function<int()> columnCount;
    // The header a sighted reader sees beside row `row` / above column `column` (a token).
    std::function<QString(int row)> rowHeader;
    std::function<QString(int column)> columnHeader;
    // A short sentence: what and where, the number, and what stands out, e.g.
    // "Head 2, query «chat», key «cat»: weight 41.0 % (largest in its row)".
    std::function<QString(int row, int column)> cellName;
    // Optional: everything else the cell's tooltip shows, as plain text.
    std::function<QString(int row, int column)> cellDescription;
    // The cell the keyboard is on (invalid: none).
    std::function<TableCell()> currentCell;
    // Optional: the cell's rectangle in the widget's coordinates (a magnifier follows it).
    std::function<QRectF(int row, int column)> cellRect;

    int rows() const { return rowCount ? rowCount() : 0; }
    int columns() const { return columnCount ? columnCount() : 0; }
    bool contains(int row, int column) const { return row >= 0 && column >= 0 && row < rows() && column < columns(); }
};

}  // namespace qkv::ui
