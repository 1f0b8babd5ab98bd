#include "ui/views/model_view.hpp"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>

#include "ui/document/head_selection.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/views/head_box.hpp"

namespace qkv::ui {

ModelViewBase::ModelViewBase(HeadSelection* selection, Changes follows, const CanvasSpec& canvas, QWidget* parent)
    : ResultView(selection, follows, parent), canvas_(new FigureCanvas(canvas.preferred, this))
{
    canvas_->setMinimumHint(canvas.minimum);
    canvas_->setAccessibleName(canvas.accessibleName);
    canvas_->setPaint([this](QPainter& painter, const QRectF& rect) { paintCanvas(painter, rect); });
    canvas_->setToolTipFunction([this](const QPointF& position) { return toolTipAt(position); });
    connect(canvas_, &FigureCanvas::clicked, this, [this](QPointF position) {
        if (hasModel()) clickAt(position);
    });
}

HeadBox* ModelViewBase::makeHeadBox(const QString& toolTip)
{
    headBox_ = new HeadBox(selection(), this);
    headBox_->setToolTip(toolTip);
    // Made after the canvas but read before it (above or beside it): Tab reaches it first. (Qt
    // orders only focusable widgets: moveCellWithArrowKeys does it again once the canvas is.)
    setTabOrder(headBox_, canvas());
    return headBox_;
}

QHBoxLayout* ModelViewBase::makeHeadBar(const QString& headToolTip, const QString& hint)
{
    makeHeadBox(headToolTip);
    auto* bar = new QHBoxLayout;
    auto* headLabel = new QLabel(tr("H&ead"), this);
    headLabel->setBuddy(headBox_);
    bar->addWidget(headLabel);
    bar->addWidget(headBox_);
    if (!hint.isEmpty()) {
        auto* hintLabel = new QLabel(hint, this);
        hintLabel->setForegroundRole(QPalette::PlaceholderText);
        hintLabel->setWordWrap(true);
        bar->addSpacing(12);
        bar->addWidget(hintLabel, 1);
    }
    return bar;
}

void ModelViewBase::moveCellWithArrowKeys()
{
    arrowKeys_ = true;
    canvas_->setFocusPolicy(Qt::StrongFocus);
    canvas_->installEventFilter(this);
    if (headBox_) setTabOrder(headBox_, canvas_);
}

void ModelViewBase::showHeads(Changes changes)
{
    // The box follows the selected head by itself (HeadBox); only a new result changes its list.
    if (headBox_ && changes.testFlag(Change::Result)) headBox_->showHeadsOf(result().get());
}

QString ModelViewBase::toolTipAt(const QPointF&) const { return {}; }

void ModelViewBase::clickAt(const QPointF&) {}

void ModelViewBase::paintCanvas(QPainter& painter, const QRectF& rect)
{
    if (hasModel()) {
        paintModel(painter, rect);
        return;
    }
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(rect, Qt::AlignCenter, result() ? tr("Computing…") : tr("No result yet."));
}

bool ModelViewBase::eventFilter(QObject* watched, QEvent* event)
{
    if (arrowKeys_ && watched == canvas_ && event->type() == QEvent::KeyPress && result() &&
        moveCellWithArrows(*static_cast<QKeyEvent*>(event), *selection(),
                           static_cast<int>(result()->attention.queryCount()),
                           static_cast<int>(result()->attention.keyCount())))
        return true;
    return ResultView::eventFilter(watched, event);
}

void repaintCanvas(const ModelViewBase& view)
{
    view.canvas()->update();
    view.canvas()->announceTableChanged();  // a new model: screen readers read its table again
}

}  // namespace qkv::ui
