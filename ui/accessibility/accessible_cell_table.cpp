#include "ui/accessibility/accessible_cell_table.hpp"

#include <QAccessibleWidget>
#include <QHash>
#include <QPointer>
#include <QTextDocumentFragment>
#include <QWidget>

#include <utility>

namespace qkv::ui {
namespace {

const char* const kHolderName = "qkv_accessible_cell_table";

// Holds a widget's CellTable as its child, so the table lives and dies with the widget and the
// factory finds it from the widget alone.
class CellTableHolder : public QObject {
public:
    CellTableHolder(CellTable table, QWidget* widget) : QObject(widget), table_(std::move(table))
    {
        setObjectName(QString::fromLatin1(kHolderName));
    }
    CellTable table_;
};

CellTableHolder* holderOf(const QWidget* widget)
{
    if (!widget) return nullptr;
    return dynamic_cast<CellTableHolder*>(
        widget->findChild<QObject*>(QString::fromLatin1(kHolderName), Qt::FindDirectChildrenOnly));
}

AccessibleEventSpy eventSpy = nullptr;

// Hands `event` to Qt (and to the spy of tests).
void send(QAccessibleEvent& event)
{
    if (eventSpy) eventSpy(&event);
    QAccessible::updateAccessibility(&event);
}

enum class Part : quint64 { Cell = 0, RowHeader = 1, ColumnHeader = 2 };

quint64 partKey(Part part, int row, int column)
{
    return (static_cast<quint64>(part) << 62) | (static_cast<quint64>(static_cast<quint32>(row)) << 31) |
           static_cast<quint64>(static_cast<quint32>(column));
}

class AccessibleCellTable;

// A cell (row, column), or a row or column header (column or row -1), of a widget's table. It
// reads the table live: after a model change a cell outside the new size is simply invalid.
class AccessibleTablePart : public QAccessibleInterface, public QAccessibleTableCellInterface {
public:
    AccessibleTablePart(QWidget* widget, Part part, int row, int column)
        : widget_(widget), part_(part), row_(row), column_(column)
    {
    }

    const CellTable* cells() const
    {
        const CellTableHolder* holder = widget_ ? holderOf(widget_) : nullptr;
        return holder ? &holder->table_ : nullptr;
    }
    bool isValid() const override
    {
        const CellTable* t = cells();
        if (!t) return false;
        switch (part_) {
        case Part::Cell: return t->contains(row_, column_);
        case Part::RowHeader: return row_ >= 0 && row_ < t->rows();
        case Part::ColumnHeader: return column_ >= 0 && column_ < t->columns();
        }
        return false;
    }
    QObject* object() const override { return nullptr; }
    QWindow* window() const override { return widget_ ? widget_->window()->windowHandle() : nullptr; }
    QAccessibleInterface* childAt(int, int) const override { return nullptr; }
    QAccessibleInterface* parent() const override { return QAccessible::queryAccessibleInterface(widget_.data()); }
    QAccessibleInterface* child(int) const override { return nullptr; }
    int childCount() const override { return 0; }
    int indexOfChild(const QAccessibleInterface*) const override { return -1; }
    void setText(QAccessible::Text, const QString&) override {}

    QString text(QAccessible::Text kind) const override
    {
        const CellTable* t = cells();
        if (!t || !isValid()) return {};
        if (part_ == Part::RowHeader) return kind == QAccessible::Name && t->rowHeader ? t->rowHeader(row_) : QString();
        if (part_ == Part::ColumnHeader)
            return kind == QAccessible::Name && t->columnHeader ? t->columnHeader(column_) : QString();
        if (kind == QAccessible::Name && t->cellName) return t->cellName(row_, column_);
        if (kind == QAccessible::Description && t->cellDescription) return t->cellDescription(row_, column_);
        return {};
    }
    QRect rect() const override
    {
        const CellTable* t = cells();
        if (!t || part_ != Part::Cell || !t->cellRect || !isValid()) return {};
        const QRect local = t->cellRect(row_, column_).toAlignedRect();
        return QRect(widget_->mapToGlobal(local.topLeft()), local.size());
    }
    QAccessible::Role role() const override
    {
        switch (part_) {
        case Part::RowHeader: return QAccessible::RowHeader;
        case Part::ColumnHeader: return QAccessible::ColumnHeader;
        case Part::Cell: break;
        }
        return QAccessible::Cell;
    }
    QAccessible::State state() const override
    {
        QAccessible::State state;
        if (part_ != Part::Cell) return state;
        state.focusable = true;
        state.selectable = true;
        state.readOnly = true;
        if (isSelected()) {
            state.selected = true;
            state.focused = widget_->hasFocus();
        }
        if (!widget_ || !widget_->isVisible()) state.invisible = true;
        return state;
    }
    void* interface_cast(QAccessible::InterfaceType type) override
    {
        if (type == QAccessible::TableCellInterface) return static_cast<QAccessibleTableCellInterface*>(this);
        return nullptr;
    }

    // QAccessibleTableCellInterface
    bool isSelected() const override
    {
        const CellTable* t = cells();
        return part_ == Part::Cell && t && t->currentCell && t->currentCell() == TableCell{row_, column_};
    }
    int columnExtent() const override { return 1; }
    int rowExtent() const override { return 1; }
    int columnIndex() const override { return column_; }
    int rowIndex() const override { return row_; }
    QList<QAccessibleInterface*> columnHeaderCells() const override;
    QList<QAccessibleInterface*> rowHeaderCells() const override;
    QAccessibleInterface* table() const override { return parent(); }

private:
    QPointer<QWidget> widget_;
    Part part_;
    int row_, column_;
};

// The widget as a Table: its children are its cells, row by row (index = row x columns + column).
class AccessibleCellTable : public QAccessibleWidget, public QAccessibleTableInterface {
public:
    explicit AccessibleCellTable(QWidget* widget) : QAccessibleWidget(widget, QAccessible::Table) {}
    ~AccessibleCellTable() override { dropParts(); }

    const CellTable* cells() const
    {
        const CellTableHolder* holder = holderOf(widget());
        return holder ? &holder->table_ : nullptr;
    }

    QAccessibleInterface* part(Part kind, int row, int column) const
    {
        const quint64 key = partKey(kind, row, column);
        if (const auto found = parts_.constFind(key); found != parts_.constEnd())
            return QAccessible::accessibleInterface(*found);
        auto* made = new AccessibleTablePart(widget(), kind, row, column);
        parts_.insert(key, QAccessible::registerAccessibleInterface(made));
        return made;
    }
    void dropParts()
    {
        for (const QAccessible::Id id : std::as_const(parts_)) QAccessible::deleteAccessibleInterface(id);
        parts_.clear();
    }

    // QAccessibleInterface
    void* interface_cast(QAccessible::InterfaceType type) override
    {
        if (type == QAccessible::TableInterface) return static_cast<QAccessibleTableInterface*>(this);
        return QAccessibleWidget::interface_cast(type);
    }
    // A reader that lists every child of W_i at d_model 4,096 would make 16 M objects: beyond
    // kListedCells a table lists none, and its cells are reached by row and column (cellAt, the
    // AT-SPI Table's GetAccessibleAt), as readers move in tables anyway.
    static constexpr long long kListedCells = 65536;
    long long cellCount() const { return static_cast<long long>(rowCount()) * columnCount(); }
    int childCount() const override { return cellCount() <= kListedCells ? static_cast<int>(cellCount()) : 0; }
    QAccessibleInterface* child(int index) const override
    {
        const int columns = columnCount();
        if (index < 0 || columns == 0 || index >= cellCount()) return nullptr;
        return cellAt(index / columns, index % columns);
    }
    int indexOfChild(const QAccessibleInterface* child) const override
    {
        auto* cell = const_cast<QAccessibleInterface*>(child)->tableCellInterface();
        if (!cell || child->role() != QAccessible::Cell || child->parent() != this) return -1;
        return cell->rowIndex() * columnCount() + cell->columnIndex();
    }
    QAccessibleInterface* focusChild() const override
    {
        const CellTable* t = cells();
        if (!t || !widget()->hasFocus() || !t->currentCell) return nullptr;
        const TableCell current = t->currentCell();
        return t->contains(current.row, current.column) ? cellAt(current.row, current.column) : nullptr;
    }
    QAccessibleInterface* childAt(int x, int y) const override
    {
        const CellTable* t = cells();
        if (!t || !t->cellRect) return nullptr;
        const QPointF local = widget()->mapFromGlobal(QPoint(x, y));
        const int rows = t->rows(), columns = t->columns();
        if (cellCount() > kListedCells) return nullptr;  // a hit test per cell
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < columns; ++c)
                if (t->cellRect(r, c).contains(local)) return cellAt(r, c);
        return nullptr;
    }
    QString text(QAccessible::Text kind) const override
    {
        const CellTable* t = cells();
        if (kind == QAccessible::Name && t && t->caption) {
            const QString caption = t->caption();
            if (!caption.isEmpty()) return caption;
        }
        return QAccessibleWidget::text(kind);
    }

    // QAccessibleTableInterface
    QAccessibleInterface* caption() const override { return nullptr; }
    QAccessibleInterface* summary() const override { return nullptr; }
    QAccessibleInterface* cellAt(int row, int column) const override
    {
        const CellTable* t = cells();
        return t && t->contains(row, column) ? part(Part::Cell, row, column) : nullptr;
    }
    int selectedCellCount() const override { return selectedCells().size(); }
    QList<QAccessibleInterface*> selectedCells() const override
    {
        const CellTable* t = cells();
        if (!t || !t->currentCell) return {};
        const TableCell current = t->currentCell();
        if (!t->contains(current.row, current.column)) return {};
        return {cellAt(current.row, current.column)};
    }
    QString columnDescription(int column) const override
    {
        const CellTable* t = cells();
        return t && t->columnHeader && column >= 0 && column < t->columns() ? t->columnHeader(column) : QString();
    }
    QString rowDescription(int row) const override
    {
        const CellTable* t = cells();
        return t && t->rowHeader && row >= 0 && row < t->rows() ? t->rowHeader(row) : QString();
    }
    int columnCount() const override { return cells() ? cells()->columns() : 0; }
    int rowCount() const override { return cells() ? cells()->rows() : 0; }
    // Whole rows and columns are never selected: the keyboard selects one cell.
    int selectedColumnCount() const override { return 0; }
    int selectedRowCount() const override { return 0; }
    QList<int> selectedColumns() const override { return {}; }
    QList<int> selectedRows() const override { return {}; }
    bool isColumnSelected(int) const override { return false; }
    bool isRowSelected(int) const override { return false; }
    bool selectRow(int) override { return false; }
    bool selectColumn(int) override { return false; }
    bool unselectRow(int) override { return false; }
    bool unselectColumn(int) override { return false; }
    void modelChange(QAccessibleTableModelChangeEvent*) override { dropParts(); }

private:
    mutable QHash<quint64, QAccessible::Id> parts_;
};

QList<QAccessibleInterface*> AccessibleTablePart::columnHeaderCells() const
{
    auto* owner = dynamic_cast<AccessibleCellTable*>(parent());
    if (part_ != Part::Cell || !owner || !cells() || !cells()->columnHeader) return {};
    return {owner->part(Part::ColumnHeader, -1, column_)};
}

QList<QAccessibleInterface*> AccessibleTablePart::rowHeaderCells() const
{
    auto* owner = dynamic_cast<AccessibleCellTable*>(parent());
    if (part_ != Part::Cell || !owner || !cells() || !cells()->rowHeader) return {};
    return {owner->part(Part::RowHeader, row_, -1)};
}

QAccessibleInterface* cellTableFactory(const QString&, QObject* object)
{
    if (!object || !object->isWidgetType()) return nullptr;
    auto* widget = static_cast<QWidget*>(object);
    return holderOf(widget) ? new AccessibleCellTable(widget) : nullptr;
}

}  // namespace

void setAccessibleCellTable(QWidget* widget, CellTable table)
{
    if (!widget) return;
    static const bool installed = [] {
        QAccessible::installFactory(cellTableFactory);
        return true;
    }();
    Q_UNUSED(installed);
    if (CellTableHolder* holder = holderOf(widget)) {
        holder->table_ = std::move(table);
        announceTableChanged(widget);
        return;
    }
    new CellTableHolder(std::move(table), widget);
    // Qt may already have made the widget's plain interface (setAccessibleName announces the
    // name, which creates it): drop it, so the next query goes through the factory.
    QAccessibleInterface* existing = QAccessible::queryAccessibleInterface(widget);
    if (existing && !existing->tableInterface()) QAccessible::deleteAccessibleInterface(QAccessible::uniqueId(existing));
}

const CellTable* accessibleCellTable(const QWidget* widget)
{
    const CellTableHolder* holder = holderOf(widget);
    return holder ? &holder->table_ : nullptr;
}

void announceCurrentCell(QWidget* widget)
{
    // Only the focused widget's cell: a selection moved from another view must not pull a
    // screen reader's focus away from where the user is.
    const CellTable* table = accessibleCellTable(widget);
    if (!table || !widget->hasFocus() || !table->currentCell) return;
    const TableCell current = table->currentCell();
    if (!table->contains(current.row, current.column)) return;
    QAccessibleEvent focus(widget, QAccessible::Focus);
    focus.setChild(current.row * table->columns() + current.column);
    send(focus);
}

void announceTableChanged(QWidget* widget)
{
    if (!accessibleCellTable(widget)) return;
    QAccessibleTableModelChangeEvent reset(widget, QAccessibleTableModelChangeEvent::ModelReset);
    send(reset);
}

void setAccessibleEventSpy(AccessibleEventSpy spy) { eventSpy = spy; }

QString plainTextOfToolTip(const QString& html)
{
    QString text = QTextDocumentFragment::fromHtml(html).toPlainText();
    text.replace(QChar::LineSeparator, QLatin1Char('\n')).replace(QChar::ParagraphSeparator, QLatin1Char('\n'));
    return text.split(QLatin1Char('\n'), Qt::SkipEmptyParts).join(QStringLiteral("; "));
}

}  // namespace qkv::ui
