#pragma once
// W_i^Q, (W_i^K)^T and W_i as a matrix product, with zoom into W_i: Ctrl+wheel zooms about the
// cursor (the wheel alone scrolls the tab, as on every tab), a drag selects a region, a double click (or resetZoom) shows the whole matrix. Each
// zoom recomputes W_i from the factors at the new window and the drawn resolution only.

#include <QWidget>

#include <memory>

#include "ui/background/offscreen_figure.hpp"
#include "ui/factored/factored_head_model.hpp"
#include "core/factored/matrix_pooling.hpp"

namespace qkv::ui {

struct FactorProductGeometry;

class FactorProductWidget : public QWidget {
    Q_OBJECT
public:
    explicit FactorProductWidget(QWidget* parent = nullptr);

    // Keeps the zoom window when d_model is unchanged, else shows the whole matrix.
    void setModel(std::shared_ptr<const FactoredHeadModel> model);

    MatrixWindow window() const { return window_; }
    void setWindow(const MatrixWindow& window);
    void resetZoom();
    // Zoom by `factor` (> 1 zooms in) keeping matrix point (row, column) where it is.
    void zoomAt(double row, double column, double factor);

    // Where W_i's cells are for the current size (the same computation as painting).
    FactorProductGeometry geometry() const;

    QSize sizeHint() const override { return {620, 520}; }
    QSize minimumSizeHint() const override { return {240, 220}; }

signals:
    void windowChanged(const qkv::MatrixWindow& window);

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;

private:
    QRectF figureRect() const;
    // Matrix (row, column) under a point of the W_i cells, as fractional indices.
    QPointF matrixPointAt(const QPointF& pos) const;

    std::shared_ptr<const FactoredHeadModel> model_;
    MatrixWindow window_;
    bool dragging_ = false;
    QPointF dragStart_, dragEnd_;
    OffscreenFigure figure_{this};  // last: its task may still paint with the model it captured
};

}  // namespace qkv::ui
