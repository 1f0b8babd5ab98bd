#pragma once
// A row of vertical bars, one per entry (positive up, negative down, from a zero line), with an
// optional label under each bar and one highlighted bar. Used for q, k, q ⊙ k, the softmax row
// and the head output.

#include <QColor>
#include <QStringList>
#include <QWidget>

#include <vector>

namespace qkv::ui {

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

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<float> values_;
    QStringList labels_;
    int highlighted_ = -1;
    QColor positive_{0x2c, 0x7f, 0xb8}, negative_{0xd9, 0x5f, 0x02};
    bool percent_ = false;
};

}  // namespace qkv::ui
