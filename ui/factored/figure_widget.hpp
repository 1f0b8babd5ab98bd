#pragma once
// A widget that shows one figure: its paintEvent calls a paint function (QPainter&, QRectF),
// the same function the exported figure calls.

#include <QWidget>

#include <functional>

class QPainter;

namespace qkv::ui {

struct FigurePalette;

class FigureWidget : public QWidget {
    Q_OBJECT
public:
    using PaintFunction = std::function<void(QPainter&, const QRectF&, const FigurePalette&)>;

    explicit FigureWidget(QSize preferredSize, QWidget* parent = nullptr);
    void setPaintFunction(PaintFunction paint);

    QSize sizeHint() const override { return preferred_; }
    QSize minimumSizeHint() const override { return {160, 120}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    PaintFunction paint_;
    QSize preferred_;
};

// Text and line colours for figures from a widget's palette (light or dark).
FigurePalette figurePalette(const QWidget& widget);

}  // namespace qkv::ui
