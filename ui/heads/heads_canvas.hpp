#pragma once
// The grid of head heatmaps on screen: hover shows a cell's numbers and highlights the query's
// row in every head, click selects a head and cell, arrow keys move the cell; shift-click or a
// drag over rows selects several queries together (HeadSelection's span). Screen readers read
// the selected head's map as a table (accessibleTable() in heads_canvas.cpp says why that one).
// Painting is paintHeadsFigure(), the same as export.

#include <QWidget>

#include <memory>

#include "ui/heads/heads_grid.hpp"

namespace qkv::ui {

class HeadSelection;

class HeadsCanvas : public QWidget {
    Q_OBJECT
public:
    explicit HeadsCanvas(HeadSelection* selection, QWidget* parent = nullptr);

    void setFigure(std::shared_ptr<const HeadsFigure> figure);
    const std::shared_ptr<const HeadsFigure>& figure() const { return figure_; }
    void setColormap(ColormapName colormap);
    ColormapName colormap() const { return state_.colormap; }
    // The scroll area's viewport size; the canvas lays itself out for it.
    void setAvailableSize(const QSize& size);
    void setZoom(double zoom);
    double zoom() const { return zoom_; }

    int panelCount() const { return figure_ ? figure_->panelCount() : 0; }
    int highlightedRow() const { return state_.highlightedRow; }
    const HeadsGridLayout& gridLayout() const { return layout_; }
    // Rich-text tooltip for a point in widget coordinates (empty when not over a cell).
    QString toolTipAt(const QPoint& position) const;
    // Centre of a cell or a row label, in widget coordinates (for tests and keyboard focus); a
    // row's label is drawn once per grid row, on its first panel.
    QPoint cellCenter(int panel, int row, int column) const;
    QRectF cellRect(int panel, int row, int column) const;
    QPoint rowLabelCenter(int panel, int row) const;
    // The state a painter would use now (colours from the palette).
    HeadsFigureState paintState() const;
    // The tip shown now by this canvas, or empty when none is visible.
    QString currentToolTip() const;

    QSize sizeHint() const override;
    // The head (0-based) whose panel is under `position`, or -1 (the average, or no panel).
    int headAt(const QPoint& position) const;

signals:
    void zoomRequested(int steps);
    // Right-click on a head's panel (to switch it off from the grid). When
    // nobody listens the event goes on to the view's own context menu.
    void headContextMenuRequested(int head, const QPoint& globalPosition);
    // A paint event has drawn the canvas (its figure, when it has one).
    void painted();

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void keyReleaseEvent(QKeyEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Hit {
        int panel = -1, row = -1, column = -1;
        bool rowLabel = false;
    };
    Hit hitTest(const QPointF& position) const;
    // The tip of the figure's cell (row, column) of `panel`.
    QString cellTip(int panel, int row, int column) const;
    void relayout();
    void setHover(int row, int panel, QPoint cell);
    void syncSelection();
    // Selects the queries from the drag's start (or the selected query) to figure row `row`.
    void selectSpanTo(int row);
    void showKeyboardToolTip();
    // The panel screen readers read: the selected head's, or -1 when there is none.
    int accessiblePanel() const;
    void makeAccessibleTable();

    HeadSelection* selection_;
    std::shared_ptr<const HeadsFigure> figure_;
    HeadsFigureState state_;
    HeadsGridLayout layout_;
    QSize available_{800, 600};
    double zoom_ = 1.0;
    int hoverRow_ = -1;
    int dragAnchor_ = -1;  // the figure row a press with the left button started on, while held
    bool keyboardCell_ = false;     // the last move was the keyboard's: the tip follows it
    QPoint keyboardMousePosition_;  // where the mouse was then (a synthetic move is not a move)
    QString lastToolTip_;
};

}  // namespace qkv::ui
