#pragma once
// A row of vertical bars, one per entry (positive up, negative down, from a zero line), with an
// optional label under each bar and one highlighted bar. Used for q, k, q ⊙ k, the softmax row
// and the head output: by the step view's widgets and by the "steps" figure, through one
// painter.

#include <QColor>
#include <QStringList>
#include <QWidget>

#include <vector>

class QPainter;

namespace qkv::ui {

struct VectorBarsStyle {
    QStringList labels;            // under the bars (thinned when crowded), or none
    int highlighted = -1;
    QColor positive{0x2c, 0x7f, 0xb8}, negative{0xd9, 0x5f, 0x02};
    bool percent = false;          // values are 0..1 weights: ticks in %
    QColor text = Qt::black;
    QColor grid = QColor(160, 160, 160);
    double labelHeight = 0;        // room for the labels under the bars (0: none)
};

// The height the labels need: the longest label (capped at 12 average characters) plus a gap.
double vectorBarsLabelHeight(const QFontMetricsF& metrics, const QStringList& labels);
void paintVectorBars(QPainter& painter, const QRectF& rect, const std::vector<float>& values,
                     const VectorBarsStyle& style);

class VectorBars : public QWidget {
    Q_OBJECT
public:
    explicit VectorBars(QWidget* parent = nullptr);

    void setValues(std::vector<float> values);
    void setLabels(const QStringList& labels);     // under the bars (thinned when crowded)
    void setHighlighted(int index);
    void setColors(const QColor& positive, const QColor& negative);
    void setPercent(bool percent);                 // values are 0..1 weights: ticks in %
    const std::vector<float>& values() const { return values_; }
    const VectorBarsStyle& style() const { return style_; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<float> values_;
    VectorBarsStyle style_;
};

}  // namespace qkv::ui
