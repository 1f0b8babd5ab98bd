#include "ui/heads/heads_canvas.hpp"

#include <QContextMenuEvent>
#include <QCursor>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMetaMethod>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <utility>

#include "ui/accessibility/accessible_cell_table.hpp"
#include "ui/background/release_later.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figures/shown_text.hpp"
#include "ui/heads/cell_tooltip.hpp"
#include "ui/render/heatmap_layout.hpp"

namespace qkv::ui {

HeadsCanvas::HeadsCanvas(HeadSelection* selection, QWidget* parent) : QWidget(parent), selection_(selection)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setAccessibleName(tr("Attention heads"));
    // Slightly smaller text than the controls: a 12-token head keeps every label at 12 heads.
    QFont figureFont = font();
    figureFont.setPointSizeF(figureFont.pointSizeF() * 0.9);
    setFont(figureFont);
    setAccessibleDescription(tr("One heatmap per head: query tokens on rows, key tokens on columns."));
    connect(selection_, &HeadSelection::headChanged, this, [this] { syncSelection(); });
    connect(selection_, &HeadSelection::cellChanged, this, [this] { syncSelection(); });
    connect(selection_, &HeadSelection::querySpanChanged, this, [this] { syncSelection(); });
    makeAccessibleTable();
}


void HeadsCanvas::setFigure(std::shared_ptr<const HeadsFigure> figure)
{
    releaseLater(std::exchange(figure_, std::move(figure)));
    relayout();
    syncSelection();
    announceTableChanged(this);
}

void HeadsCanvas::setColormap(ColormapName colormap)
{
    state_.colormap = colormap;
    update();
}

void HeadsCanvas::setAvailableSize(const QSize& size)
{
    if (size == available_) return;
    available_ = size;
    relayout();
}

void HeadsCanvas::setZoom(double zoom)
{
    zoom_ = std::clamp(zoom, 0.25, 16.0);
    relayout();
}

HeadsFigureState HeadsCanvas::paintState() const
{
    HeadsFigureState state = state_;
    state.background = palette().color(QPalette::Base);
    state.text = palette().color(QPalette::Text);
    state.selection = palette().color(QPalette::Highlight);
    return state;
}

void HeadsCanvas::relayout()
{
    if (figure_) {
        layout_ = layoutHeadsGrid(*figure_, QSizeF(available_), zoom_, font(), this);
        setFixedSize(layout_.size.toSize());
    } else {
        layout_ = {};
        setFixedSize(available_);
    }
    update();
}

void HeadsCanvas::syncSelection()
{
    if (!figure_) return;
    state_.selectedPanel = selection_->head();
    state_.highlightedPanel = selection_->head();
    state_.highlightedCell =
        QPoint(figure_->columnOfPosition(selection_->keyColumn()), figure_->rowOfPosition(selection_->queryRow()));
    state_.highlightedRow = hoverRow_ >= 0 ? hoverRow_ : -1;
    state_.spanFirstRow = state_.spanEndRow = -1;
    if (selection_->hasQuerySpan()) {
        state_.spanFirstRow = figure_->rowOfPosition(selection_->queryRow());
        const int last = figure_->rowOfPosition(selection_->querySpanEnd() - 1);
        state_.spanEndRow = last >= 0 ? last + 1 : -1;
    }
    update();
    announceCurrentCell(this);  // only while the canvas has the focus
}

void HeadsCanvas::selectSpanTo(int row)
{
    // The span from where the press (or the selected query) was to `row`, both whole: a block of
    // a long layer counts with all its positions.
    const int anchor = dragAnchor_ >= 0 ? dragAnchor_ : figure_->rowOfPosition(selection_->queryRow());
    const int from = std::min(anchor, row), to = std::max(anchor, row);
    selection_->setQuerySpan(static_cast<int>(figure_->rowPositions(from).first),
                             static_cast<int>(figure_->rowPositions(to).second));
}

QSize HeadsCanvas::sizeHint() const { return layout_.size.isEmpty() ? QSize(800, 600) : layout_.size.toSize(); }

HeadsCanvas::Hit HeadsCanvas::hitTest(const QPointF& position) const
{
    Hit hit;
    if (!figure_) return hit;
    const QFontMetricsF metrics(font(), this);
    for (int p = 0; p < static_cast<int>(layout_.panels.size()); ++p) {
        const QRectF& rect = layout_.panels[static_cast<std::size_t>(p)];
        if (!rect.contains(position)) continue;
        const HeatmapLayout cells(rect, figure_->rows(), figure_->columns(), panelStyle(*figure_, p, state_, &layout_), metrics);
        const QPoint cell = cells.cellAt(position);
        hit.panel = p;
        if (cell.x() >= 0) {
            hit.row = cell.y();
            hit.column = cell.x();
        } else if (const int row = cells.rowLabelAt(position); row >= 0) {
            hit.row = row;
            hit.rowLabel = true;
        }
        break;
    }
    return hit;
}

QPoint HeadsCanvas::cellCenter(int panel, int row, int column) const
{
    const QRectF rect = cellRect(panel, row, column);
    return rect.isNull() ? QPoint() : rect.center().toPoint();
}

QRectF HeadsCanvas::cellRect(int panel, int row, int column) const
{
    if (!figure_ || panel < 0 || panel >= static_cast<int>(layout_.panels.size())) return {};
    const HeatmapLayout cells(layout_.panels[static_cast<std::size_t>(panel)], figure_->rows(), figure_->columns(),
                              panelStyle(*figure_, panel, state_, &layout_), QFontMetricsF(font(), this));
    return cells.cellRect(row, column);
}

QPoint HeadsCanvas::rowLabelCenter(int panel, int row) const
{
    if (!figure_ || panel < 0 || panel >= static_cast<int>(layout_.panels.size())) return {};
    panel -= panel % std::max(layout_.columns, 1);  // the panel of its grid row that draws the labels
    const HeatmapLayout cells(layout_.panels[static_cast<std::size_t>(panel)], figure_->rows(), figure_->columns(),
                              panelStyle(*figure_, panel, state_, &layout_), QFontMetricsF(font(), this));
    const QRectF labels = cells.rowLabelsRect();
    return QPointF(labels.right() - 8, cells.rowRect(row).center().y()).toPoint();
}

QString HeadsCanvas::toolTipAt(const QPoint& position) const
{
    const Hit hit = hitTest(position);
    if (!figure_ || hit.panel < 0 || hit.row < 0) return {};
    if (hit.rowLabel && figure_->pooled()) {
        const auto [first, end] = figure_->rowPositions(hit.row);
        return tr("Queries %1–%2: their block's row is highlighted in every head").arg(first).arg(end - 1);
    }
    if (hit.rowLabel) {
        const QStringList& labels = figure_->rowLabels();
        return tr("Query «%1» (position %2): its row is highlighted in every head")
            .arg(hit.row < labels.size() ? labels[hit.row].toHtmlEscaped() : QString())
            .arg(hit.row);
    }
    return cellTip(hit.panel, hit.row, hit.column);
}

QString HeadsCanvas::cellTip(int panel, int row, int column) const
{
    // A long layer's cell is a block of positions; a held layer's is one query and one key.
    const int head = figure_->headOfPanel(panel);
    if (figure_->pooled())
        return pooledCellToolTip(*figure_->result(), head, row, column, figure_->rowPositions(row),
                                 figure_->columnPositions(column));
    return cellToolTip(*figure_->result(), head, row, column, figure_->valueNorms());
}

void HeadsCanvas::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    if (!figure_) {
        painter.fillRect(rect(), palette().color(QPalette::Base));
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("Computing…"));
        return;
    }
    paintHeadsFigure(painter, *figure_, layout_, paintState());
    emit painted();
}

void HeadsCanvas::setHover(int row, int panel, QPoint cell)
{
    Q_UNUSED(panel);
    Q_UNUSED(cell);
    if (row == hoverRow_) return;
    hoverRow_ = row;
    state_.highlightedRow = row;
    update();
}

void HeadsCanvas::mouseMoveEvent(QMouseEvent* event)
{
    const Hit hit = hitTest(event->position());
    if ((event->buttons() & Qt::LeftButton) && dragAnchor_ >= 0 && hit.row >= 0 && hit.row != dragAnchor_) {
        selectSpanTo(hit.row);  // a drag over rows selects them together
        return;
    }
    setHover(hit.row, hit.panel, QPoint(hit.column, hit.row));
    if (event->position().toPoint() == keyboardMousePosition_) return;  // not a real move
    keyboardCell_ = false;                                              // the mouse speaks again: the tip follows it
    const QString tip = toolTipAt(event->position().toPoint());
    if (tip.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), richText(tip), this);
}

void HeadsCanvas::leaveEvent(QEvent* event)
{
    setHover(-1, -1, {-1, -1});
    QWidget::leaveEvent(event);
}

int HeadsCanvas::headAt(const QPoint& position) const
{
    const Hit hit = hitTest(position);
    return hit.panel < 0 ? -1 : figure_->headOfPanel(hit.panel);
}

void HeadsCanvas::contextMenuEvent(QContextMenuEvent* event)
{
    const int head = headAt(event->pos());
    if (head < 0 || !isSignalConnected(QMetaMethod::fromSignal(&HeadsCanvas::headContextMenuRequested))) {
        event->ignore();
        return;
    }
    selection_->setHead(head);
    emit headContextMenuRequested(head, event->globalPos());
    event->accept();
}

void HeadsCanvas::mousePressEvent(QMouseEvent* event)
{
    const Hit hit = hitTest(event->position());
    if (hit.panel < 0) return;
    const int head = figure_->headOfPanel(hit.panel);
    if (head >= 0) selection_->setHead(head);
    dragAnchor_ = -1;
    if (hit.row >= 0 && (event->modifiers() & Qt::ShiftModifier)) {
        selectSpanTo(hit.row);  // shift-click: the queries from the selected one to this one
    } else if (hit.row >= 0) {
        selection_->setCell(static_cast<int>(figure_->positionOfRow(hit.row)),
                            hit.column >= 0 ? static_cast<int>(figure_->positionOfColumn(hit.column))
                                            : selection_->keyColumn());
        dragAnchor_ = hit.row;
    }
    setFocus(Qt::MouseFocusReason);
}

void HeadsCanvas::mouseReleaseEvent(QMouseEvent* event)
{
    dragAnchor_ = -1;
    QWidget::mouseReleaseEvent(event);
}

void HeadsCanvas::keyPressEvent(QKeyEvent* event)
{
    if (!figure_ || figure_->rows() == 0) {
        QWidget::keyPressEvent(event);
        return;
    }
    // Cells of the figure: positions, or a long layer's blocks.
    int row = figure_->rowOfPosition(selection_->queryRow()), column = figure_->columnOfPosition(selection_->keyColumn());
    switch (event->key()) {
    case Qt::Key_Left: --column; break;
    case Qt::Key_Right: ++column; break;
    case Qt::Key_Up: --row; break;
    case Qt::Key_Down: ++row; break;
    case Qt::Key_Home: column = 0; break;
    case Qt::Key_End: column = figure_->columns() - 1; break;
    default: QWidget::keyPressEvent(event); return;
    }
    row = std::clamp(row, 0, figure_->rows() - 1);
    column = std::clamp(column, 0, figure_->columns() - 1);
    selection_->setCell(static_cast<int>(figure_->positionOfRow(row)), static_cast<int>(figure_->positionOfColumn(column)));
    // From now on the tip describes the cell the keyboard moved to, not the one under the
    // mouse, until the mouse moves (else the tip kept describing the old cell).
    keyboardCell_ = true;
    keyboardMousePosition_ = mapFromGlobal(QCursor::pos());
    showKeyboardToolTip();
}

QString HeadsCanvas::currentToolTip() const
{
    if (QToolTip::isVisible() && QToolTip::text() == richText(lastToolTip_)) return lastToolTip_;
    return {};
}

void HeadsCanvas::showKeyboardToolTip()
{
    if (!figure_) return;
    const int panel = selection_->head();
    const int row = figure_->rowOfPosition(selection_->queryRow());
    const int column = figure_->columnOfPosition(selection_->keyColumn());
    const QPoint centre = cellCenter(panel, row, column);
    lastToolTip_ = cellTip(panel, row, column);
    QToolTip::showText(mapToGlobal(centre), richText(lastToolTip_), this, QRect(centre - QPoint(4, 4), QSize(8, 8)));
}

void HeadsCanvas::keyReleaseEvent(QKeyEvent* event)
{
    // Qt hides tool tips on every key event: show the keyboard's cell again once the key is up.
    if (keyboardCell_ && !event->isAutoRepeat()) showKeyboardToolTip();
    QWidget::keyReleaseEvent(event);
}

void HeadsCanvas::wheelEvent(QWheelEvent* event)
{
    if (event->modifiers() & Qt::ControlModifier) {
        emit zoomRequested(event->angleDelta().y() > 0 ? 1 : -1);
        event->accept();
        return;
    }
    QWidget::wheelEvent(event);
}

bool HeadsCanvas::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        if (keyboardCell_) {
            showKeyboardToolTip();
            return true;
        }
        auto* help = static_cast<QHelpEvent*>(event);
        const QString tip = toolTipAt(help->pos());
        if (tip.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            lastToolTip_ = tip;
            QToolTip::showText(help->globalPos(), richText(tip), this);
        }
        return true;
    }
    return QWidget::event(event);
}

}  // namespace qkv::ui
