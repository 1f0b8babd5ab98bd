#include "ui/patching/patch_grid_canvas.hpp"

#include <QKeyEvent>
#include <QPainter>

#include <cmath>

namespace qkv::ui {

PatchGridCanvas::PatchGridCanvas(QSize preferredSize, QWidget* parent) : FigureCanvas(preferredSize, parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setPaint([this](QPainter& painter, const QRectF& rect) {
        if (!data_) return;
        FigureOptions options = widgetFigureOptions(*this);
        options.showSelection = hasFocus();
        paintPatchGrid(painter, rect, *data_, options, current_);
    });
    connect(this, &FigureCanvas::clicked, this, [this](QPointF position) {
        const TableCell cell = cellAt(position);
        if (!cell.valid()) return;
        current_ = cell;
        update();
        emit cellActivated(cell.row, cell.column);
    });
    // The cell's sentence as its tooltip (a page may set a richer one).
    setToolTipFunction([this](const QPointF& position) {
        const TableCell cell = cellAt(position);
        if (!cell.valid()) return QString();
        return (cellName_ ? cellName_(cell.row, cell.column) : defaultCellName(cell.row, cell.column)).toHtmlEscaped();
    });
    CellTable table;
    table.caption = [this] { return data_ ? data_->title : accessibleName(); };
    table.rowCount = [this] { return data_ ? static_cast<int>(data_->values.rows()) : 0; };
    table.columnCount = [this] { return data_ ? static_cast<int>(data_->values.cols()) : 0; };
    table.rowHeader = [this](int row) {
        return data_ ? QStringLiteral("%1 %2").arg(data_->rowAxis, data_->rowLabels.value(row)) : QString();
    };
    table.columnHeader = [this](int column) {
        return data_ ? QStringLiteral("%1 %2").arg(data_->columnAxis, data_->columnLabels.value(column)) : QString();
    };
    table.cellName = [this](int row, int column) {
        return cellName_ ? cellName_(row, column) : defaultCellName(row, column);
    };
    table.currentCell = [this] { return data_ ? current_ : TableCell{}; };
    table.cellRect = [this](int row, int column) { return cellRect(row, column); };
    setCellTable(std::move(table));
}

void PatchGridCanvas::setData(std::shared_ptr<const PatchGridData> data)
{
    const bool reshaped = !data_ || !data || data_->values.rows() != data->values.rows() ||
                          data_->values.cols() != data->values.cols();
    data_ = std::move(data);
    if (reshaped) current_ = {0, 0};
    update();
    if (reshaped) announceTableChanged();
}

TableCell PatchGridCanvas::cellAt(const QPointF& position) const
{
    if (!data_) return {};
    return PatchGridLayout(figureRect(), *data_, QFontMetricsF(font(), this)).cellAt(position);
}

QRectF PatchGridCanvas::cellRect(int row, int column) const
{
    if (!data_) return {};
    return PatchGridLayout(figureRect(), *data_, QFontMetricsF(font(), this)).cell(row, column);
}

QString PatchGridCanvas::defaultCellName(int row, int column) const
{
    if (!data_ || row >= data_->values.rows() || column >= data_->values.cols()) return {};
    const double value = data_->values(row, column);
    const QString shown = std::isfinite(value) ? QString::number(value, 'f', 2) : tr("not computed");
    return tr("%1 %2, %3 %4: %5 %6")
        .arg(data_->rowAxis, data_->rowLabels.value(row), data_->columnAxis, data_->columnLabels.value(column),
             data_->legendLabel, shown);
}

void PatchGridCanvas::keyPressEvent(QKeyEvent* event)
{
    if (!data_) return FigureCanvas::keyPressEvent(event);
    const int rows = static_cast<int>(data_->values.rows()), columns = static_cast<int>(data_->values.cols());
    TableCell next = current_;
    switch (event->key()) {
    case Qt::Key_Up: next.row = std::max(0, next.row - 1); break;
    case Qt::Key_Down: next.row = std::min(rows - 1, next.row + 1); break;
    case Qt::Key_Left: next.column = std::max(0, next.column - 1); break;
    case Qt::Key_Right: next.column = std::min(columns - 1, next.column + 1); break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        if (current_.valid()) emit cellActivated(current_.row, current_.column);
        return event->accept();
    default: return FigureCanvas::keyPressEvent(event);
    }
    event->accept();
    if (next == current_) return;
    current_ = next;
    update();
    announceCurrentCell();
}

}  // namespace qkv::ui
