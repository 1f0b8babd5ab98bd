#pragma once
// Lays figures out in as many columns as fit (each at least `minimumCell`), at most
// `maxColumns`, rows sharing the height they have; below that size the grid grows and the
// scroll area holding it scrolls, so that no figure is squashed.

#include <QSize>
#include <QWidget>

#include <vector>

namespace qkv::ui {

class FigureGrid : public QWidget {
    Q_OBJECT
public:
    FigureGrid(QSize minimumCell, int maxColumns, QWidget* parent = nullptr);

    // `span` columns wide (clamped to the column count), in reading order.
    void addWidget(QWidget* widget, int span = 1);
    int columnCount() const { return columns_; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void relayout();

    struct Item {
        QWidget* widget;
        int span;
    };
    std::vector<Item> items_;
    QSize minimumCell_;
    int maxColumns_;
    int columns_ = 1;
};

}  // namespace qkv::ui
