#include "ui/figure_widgets/figure_canvas.hpp"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

#include "ui/accessibility/accessible_cell_table.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figures/shown_text.hpp"

namespace qkv::ui {

FigureCanvas::FigureCanvas(QSize preferredSize, QWidget* parent) : QWidget(parent), preferred_(preferredSize)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void FigureCanvas::setPaint(Paint paint)
{
    paint_ = std::move(paint);
    update();
}

void FigureCanvas::setToolTipFunction(ToolTip toolTip) { toolTip_ = std::move(toolTip); }

void FigureCanvas::setPreferredSize(QSize size)
{
    preferred_ = size;
    updateGeometry();
}

void FigureCanvas::setMinimumHint(QSize size)
{
    minimum_ = size;
    updateGeometry();
}

void FigureCanvas::setCellTable(CellTable table, const HeadSelection* follows)
{
    setAccessibleCellTable(this, std::move(table));
    if (!follows) return;
    connect(follows, &HeadSelection::cellChanged, this, &FigureCanvas::announceCurrentCell);
    connect(follows, &HeadSelection::headChanged, this, &FigureCanvas::announceCurrentCell);
}

void FigureCanvas::announceCurrentCell() { qkv::ui::announceCurrentCell(this); }

void FigureCanvas::announceTableChanged() { qkv::ui::announceTableChanged(this); }

QRectF FigureCanvas::figureRect() const { return QRectF(rect()); }

QString FigureCanvas::toolTipAt(const QPointF& position) const { return toolTip_ ? toolTip_(position) : QString(); }

void FigureCanvas::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    painter.setRenderHint(QPainter::TextAntialiasing, true);
    if (paint_) paint_(painter, figureRect());
}

void FigureCanvas::mousePressEvent(QMouseEvent* event)
{
    setFocus(Qt::MouseFocusReason);
    if (event->button() == Qt::LeftButton) emit clicked(event->position());
}

void FigureCanvas::mouseMoveEvent(QMouseEvent* event)
{
    emit hovered(event->position());
    const QString tip = toolTipAt(event->position());
    if (tip.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), richText(tip), this);
}

void FigureCanvas::leaveEvent(QEvent* event)
{
    emit hovered(QPointF(-1, -1));
    QWidget::leaveEvent(event);
}

bool FigureCanvas::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString tip = toolTipAt(help->pos());
        if (tip.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(help->globalPos(), richText(tip), this);
        }
        return true;
    }
    return QWidget::event(event);
}

bool moveCellWithArrows(const QKeyEvent& event, HeadSelection& selection, int queries, int keys)
{
    int q = selection.queryRow(), k = selection.keyColumn();
    switch (event.key()) {
    case Qt::Key_Up: --q; break;
    case Qt::Key_Down: ++q; break;
    case Qt::Key_Left: --k; break;
    case Qt::Key_Right: ++k; break;
    case Qt::Key_Home: k = 0; break;
    case Qt::Key_End: k = keys - 1; break;
    default: return false;
    }
    if (queries <= 0 || keys <= 0) return true;
    selection.setCell(std::clamp(q, 0, queries - 1), std::clamp(k, 0, keys - 1));
    return true;
}

FigureOptions widgetFigureOptions(const QWidget& widget)
{
    FigureOptions options;
    options.background = widget.palette().color(QPalette::Base);
    options.text = widget.palette().color(QPalette::Text);
    options.font = widget.font();
    return options;
}

FigureOptions screenFigureOptions(const QWidget& widget, const HeadSelection& selection)
{
    FigureOptions options = widgetFigureOptions(widget);
    options.head = selection.head();
    options.query = selection.queryRow();
    options.key = selection.keyColumn();
    options.showSelection = true;
    return options;
}

}  // namespace qkv::ui
