#pragma once
// The widget half of a figure: paints a widget-free figure painter over its whole rectangle
// (the same painter export calls, with the selection marks on) and reports the mouse in the
// painter's coordinates, so the view can hit-test with the painter's own geometry.

#include <QWidget>

#include <functional>

class QKeyEvent;

#include "ui/accessibility/cell_table.hpp"
#include "ui/figures/figure.hpp"

namespace qkv::ui {

class HeadSelection;

class FigureCanvas : public QWidget {
    Q_OBJECT
public:
    using Paint = std::function<void(QPainter&, const QRectF&)>;
    using ToolTip = std::function<QString(const QPointF&)>;

    explicit FigureCanvas(QSize preferredSize, QWidget* parent = nullptr);

    void setPaint(Paint paint);
    // The tip for a point as HTML whose data is escaped (empty: no tooltip).
    void setToolTipFunction(ToolTip toolTip);
    // The rectangle handed to the painter.
    QRectF figureRect() const;
    QString toolTipAt(const QPointF& position) const;
    void setPreferredSize(QSize size);

    QSize sizeHint() const override { return preferred_; }
    QSize minimumSizeHint() const override { return minimum_; }
    void setMinimumHint(QSize size);

    // Screen readers read the figure as `table` (ui/accessibility/accessible_cell_table.hpp).
    // With `follows`, every move of that selection's cell or head while this canvas has the
    // keyboard focus announces the current cell; without, the view calls announceCurrentCell().
    void setCellTable(CellTable table, const HeadSelection* follows = nullptr);
    // Screen readers: the keyboard moved to table.currentCell(); the table's model changed.
    void announceCurrentCell();
    void announceTableChanged();

signals:
    void clicked(QPointF position);
    void hovered(QPointF position);  // (-1, -1) when the mouse leaves

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    bool event(QEvent* event) override;

private:
    Paint paint_;
    ToolTip toolTip_;
    QSize preferred_;
    QSize minimum_{320, 240};
};

// ↑↓ move the selected query, ←→ the key, Home/End the first/last key, within `queries` x
// `keys`. Returns whether the key was one of these (the caller then accepts the event).
bool moveCellWithArrows(const QKeyEvent& event, HeadSelection& selection, int queries, int keys);

// The options a figure is drawn with on screen: the widget's colours (light or dark palette)
// and font; with a selection, also the shared selection and its marks.
FigureOptions widgetFigureOptions(const QWidget& widget);
FigureOptions screenFigureOptions(const QWidget& widget, const HeadSelection& selection);

}  // namespace qkv::ui
