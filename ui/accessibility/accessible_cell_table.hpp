#pragma once
// The one accessible interface of every heatmap: any widget with a CellTable attached is shown
// to screen readers (QAccessible; on Linux through AT-SPI, which Orca reads) as a Table whose
// children are its cells (role Cell, QAccessibleTableCellInterface) and whose row and column
// descriptions are the headers. Views only fill a CellTable; none has an accessible class.
//
// How to give a canvas a table (e.g. a new grid view):
//
//     CellTable table;
//     table.rowCount = [this] { return model_ ? model_->rows() : 0; };
//     table.columnCount = [this] { return model_ ? model_->columns() : 0; };
//     table.rowHeader = [this](int row) { return model_->rowLabel(row); };
//     table.columnHeader = [this](int column) { return model_->columnLabel(column); };
//     table.cellName = [this](int row, int column) { return model_->cellSentence(row, column); };
//     table.currentCell = [this] { return TableCell{selectedRow_, selectedColumn_}; };
//     canvas->setCellTable(std::move(table), selection);  // FigureCanvas; or, for any widget:
//     setAccessibleCellTable(widget, std::move(table));
//
// then, after the keyboard moved the current cell, announceCurrentCell(widget) (a FigureCanvas
// given a HeadSelection does it itself), and when the model changed, announceTableChanged(widget).

#include <QString>

#include "ui/accessibility/cell_table.hpp"

class QAccessibleEvent;
class QWidget;

namespace qkv::ui {

// Makes `widget` a table for screen readers, reading `table` (installs the interface factory
// once; replaces an interface Qt already made for the widget).
void setAccessibleCellTable(QWidget* widget, CellTable table);

// The table attached to `widget`, or null.
const CellTable* accessibleCellTable(const QWidget* widget);

// Sends a focus event for the current cell when `widget` has the keyboard focus and a screen
// reader listens: the reader moves with the keyboard and reads the cell's name.
void announceCurrentCell(QWidget* widget);

// The rows, columns or cells changed (a new model): screen readers read the table again.
void announceTableChanged(QWidget* widget);

// Sees every event announceCurrentCell and announceTableChanged hand to Qt (null: none). For
// tests: Qt 6.4 calls an installed QAccessible update handler only while QAccessible::isActive(),
// which stays false without a platform bridge (the offscreen platform has none), so a test there
// watches what this layer sends instead; the AT-SPI test reads the real bridge.
using AccessibleEventSpy = void (*)(QAccessibleEvent* event);
void setAccessibleEventSpy(AccessibleEventSpy spy);

// A tooltip's HTML as the plain text a screen reader reads (a cell's description): tags dropped,
// entities decoded, line breaks as "; " so the reader pauses between the tip's lines.
QString plainTextOfToolTip(const QString& html);

}  // namespace qkv::ui
