#pragma once
// A PatchGridData on screen: the figure's painter over the canvas, the cell under the mouse, a
// tooltip the page supplies, and the grid as a screen reader reads it (a CellTable with the row
// and column labels as headers and a sentence per cell). Arrow keys move the current cell;
// Return opens it as a click would.

#include <functional>
#include <memory>

#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/patching/patch_grid_figure.hpp"

namespace qkv::ui {

class PatchGridCanvas : public FigureCanvas {
    Q_OBJECT
public:
    using CellText = std::function<QString(int row, int column)>;
    explicit PatchGridCanvas(QSize preferredSize, QWidget* parent = nullptr);

    // Null: an empty canvas. `cellName`: the screen reader's sentence of a cell (empty: the value).
    void setData(std::shared_ptr<const PatchGridData> data);
    const std::shared_ptr<const PatchGridData>& data() const { return data_; }
    void setCellName(CellText cellName) { cellName_ = std::move(cellName); }
    TableCell cellAt(const QPointF& position) const;
    QRectF cellRect(int row, int column) const;
    TableCell currentCell() const { return current_; }

signals:
    void cellActivated(int row, int column);

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    QString defaultCellName(int row, int column) const;

    std::shared_ptr<const PatchGridData> data_;
    CellText cellName_;
    TableCell current_{0, 0};
};

}  // namespace qkv::ui
