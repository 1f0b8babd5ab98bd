#include "ui/figure_widgets/figure_grid.hpp"

#include <algorithm>

namespace qkv::ui {
namespace {

constexpr int kGap = 8;

}  // namespace

FigureGrid::FigureGrid(QSize minimumCell, int maxColumns, QWidget* parent)
    : QWidget(parent), minimumCell_(minimumCell), maxColumns_(std::max(1, maxColumns))
{
}

void FigureGrid::addWidget(QWidget* widget, int span)
{
    widget->setParent(this);
    items_.push_back({widget, std::max(1, span)});
    relayout();
}

void FigureGrid::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    relayout();
}

void FigureGrid::relayout()
{
    const int width = std::max(1, this->width());
    columns_ = std::clamp((width + kGap) / (minimumCell_.width() + kGap), 1, maxColumns_);
    // Rows in reading order, an item wrapping to the next row when its span does not fit.
    std::vector<std::vector<const Item*>> rows(1);
    int used = 0;
    for (const Item& item : items_) {
        const int span = std::min(item.span, columns_);
        if (used + span > columns_) {
            rows.emplace_back();
            used = 0;
        }
        rows.back().push_back(&item);
        used += span;
    }
    const int rowCount = static_cast<int>(rows.size());
    const int needed = rowCount * minimumCell_.height() + (rowCount - 1) * kGap;
    if (minimumHeight() != needed) setMinimumHeight(needed);  // the scroll area then scrolls
    const int rowHeight = std::max(minimumCell_.height(), (height() - (rowCount - 1) * kGap) / rowCount);
    const double columnWidth = (width - (columns_ - 1) * kGap) / static_cast<double>(columns_);
    int y = 0;
    for (const auto& row : rows) {
        int column = 0;
        for (const Item* item : row) {
            const int span = std::min(item->span, columns_);
            const int x = static_cast<int>(column * (columnWidth + kGap));
            const int w = static_cast<int>(span * columnWidth + (span - 1) * kGap);
            item->widget->setGeometry(x, y, w, rowHeight);
            column += span;
        }
        y += rowHeight + kGap;
    }
}

}  // namespace qkv::ui
