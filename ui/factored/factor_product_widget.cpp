#include "ui/factored/factor_product_widget.hpp"

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include "ui/factored/factored_figures.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"

namespace qkv::ui {

FactorProductWidget::FactorProductWidget(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setMouseTracking(false);
    setToolTip(tr("Ctrl+wheel: zoom W_i about the cursor. Drag: zoom into a region. Double click: whole matrix."));
}

void FactorProductWidget::setModel(std::shared_ptr<const FactoredHeadModel> model)
{
    const Index previous = model_ ? model_->d_model : -1;
    model_ = std::move(model);
    const Index d_model = model_ ? model_->d_model : 0;
    if (d_model != previous) {
        window_ = MatrixWindow::whole(d_model, d_model);
        emit windowChanged(window_);
    }
    update();
}

void FactorProductWidget::setWindow(const MatrixWindow& window)
{
    const MatrixWindow clamped = clampWindow(window, model_ ? model_->d_model : 0);
    if (clamped == window_) {
        return;
    }
    window_ = clamped;
    emit windowChanged(window_);
    update();
}

void FactorProductWidget::resetZoom()
{
    const Index d_model = model_ ? model_->d_model : 0;
    setWindow(MatrixWindow::whole(d_model, d_model));
}

void FactorProductWidget::zoomAt(double row, double column, double factor)
{
    if (!model_ || factor <= 0.0) {
        return;
    }
    const double side = static_cast<double>(window_.rows);
    const double newSide = std::clamp(side / factor, 1.0, static_cast<double>(model_->d_model));
    // Keep (row, column) at the same fraction of the window.
    const double fy = (row - static_cast<double>(window_.row0)) / side;
    const double fx = (column - static_cast<double>(window_.col0)) / side;
    MatrixWindow next;
    next.rows = next.cols = static_cast<Index>(std::lround(newSide));
    next.row0 = static_cast<Index>(std::lround(row - fy * newSide));
    next.col0 = static_cast<Index>(std::lround(column - fx * newSide));
    setWindow(next);
}

QRectF FactorProductWidget::figureRect() const { return QRectF(rect()).adjusted(4, 4, -4, -4); }

FactorProductGeometry FactorProductWidget::geometry() const
{
    static const FactoredHeadModel empty;
    return factorProductGeometry(figureRect(), QFontMetricsF(font(), this), model_ ? *model_ : empty, window_);
}

QPointF FactorProductWidget::matrixPointAt(const QPointF& pos) const
{
    const FactorProductGeometry g = geometry();
    const double fx = (pos.x() - g.product.left()) / g.product.width();
    const double fy = (pos.y() - g.product.top()) / g.product.height();
    return {static_cast<double>(window_.col0) + std::clamp(fx, 0.0, 1.0) * static_cast<double>(window_.cols),
            static_cast<double>(window_.row0) + std::clamp(fy, 0.0, 1.0) * static_cast<double>(window_.rows)};
}

void FactorProductWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    painter.setRenderHint(QPainter::TextAntialiasing, true);
    static const auto empty = std::make_shared<const FactoredHeadModel>();
    const std::shared_ptr<const FactoredHeadModel> model = model_ ? model_ : empty;
    const FigurePalette colors = figurePalette(widgetFigureOptions(*this));
    const MatrixWindow window = window_;
    const std::uint64_t key = FigureKey()
                                  .add(model.get())
                                  .add(static_cast<std::uint64_t>(window.row0))
                                  .add(static_cast<std::uint64_t>(window.col0))
                                  .add(static_cast<std::uint64_t>(window.rows))
                                  .add(static_cast<std::uint64_t>(window.cols))
                                  .add(colors.text)
                                  .add(colors.background)
                                  .add(font())
                                  .value();
    const QRectF target = figureRect();
    figure_.paint(painter, target, key, factorProductWork(*model, window, target.size()),
                  [model, window, colors](QPainter& p, const QRectF& rect) {
                      paintFactorProduct(p, rect, *model, window, colors);
                  },
                  model);
    if (dragging_) {
        const QRectF band = QRectF(dragStart_, dragEnd_).normalized();
        painter.setPen(QPen(palette().color(QPalette::Highlight), 1.5, Qt::DashLine));
        painter.setBrush(QColor(0, 0, 0, 30));
        painter.drawRect(band);
    }
}

void FactorProductWidget::wheelEvent(QWheelEvent* event)
{
    // The wheel alone scrolls the tab (the lines below W_i must stay reachable from here); Ctrl
    // zooms, as on the Heads tab.
    const FactorProductGeometry g = geometry();
    if (!model_ || !(event->modifiers() & Qt::ControlModifier) || !g.product.contains(event->position())) {
        event->ignore();
        return;
    }
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0.0) {
        return;
    }
    const QPointF point = matrixPointAt(event->position());  // (column, row)
    zoomAt(point.y(), point.x(), std::pow(1.25, steps));
    event->accept();
}

void FactorProductWidget::mousePressEvent(QMouseEvent* event)
{
    if (model_ && event->button() == Qt::LeftButton && geometry().product.contains(event->position())) {
        dragging_ = true;
        dragStart_ = dragEnd_ = event->position();
        event->accept();
        return;
    }
    QWidget::mousePressEvent(event);
}

void FactorProductWidget::mouseMoveEvent(QMouseEvent* event)
{
    if (dragging_) {
        const QRectF product = geometry().product;
        dragEnd_ = QPointF(std::clamp(event->position().x(), product.left(), product.right()),
                           std::clamp(event->position().y(), product.top(), product.bottom()));
        update();
        return;
    }
    QWidget::mouseMoveEvent(event);
}

void FactorProductWidget::mouseReleaseEvent(QMouseEvent* event)
{
    if (!dragging_) {
        QWidget::mouseReleaseEvent(event);
        return;
    }
    dragging_ = false;
    const QRectF band = QRectF(dragStart_, dragEnd_).normalized();
    if (band.width() >= 4 || band.height() >= 4) {
        const QPointF a = matrixPointAt(band.topLeft());
        const QPointF b = matrixPointAt(band.bottomRight());
        const double side = std::max(b.x() - a.x(), b.y() - a.y());
        MatrixWindow next;
        next.row0 = static_cast<Index>(std::floor(a.y()));
        next.col0 = static_cast<Index>(std::floor(a.x()));
        next.rows = next.cols = std::max<Index>(1, static_cast<Index>(std::ceil(side)));
        setWindow(next);
    }
    update();
}

void FactorProductWidget::mouseDoubleClickEvent(QMouseEvent* event)
{
    dragging_ = false;
    resetZoom();
    event->accept();
}

}  // namespace qkv::ui
