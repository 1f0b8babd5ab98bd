#pragma once
// A logarithmic slider for one projection's scale factor (x0.1 ... x10), with its value shown.
// Scaling W^Q or W^K sharpens (> 1) or flattens (< 1) the attention.

#include <QWidget>

class QLabel;
class QSlider;

namespace qkv::ui {

class ScaleSlider : public QWidget {
    Q_OBJECT
public:
    explicit ScaleSlider(const QString& name, QWidget* parent = nullptr);

    float value() const;
    QString name() const;  // "W^Q"
    void setValue(float scale);  // no valueChanged
    QSlider* slider() const { return slider_; }

    static int toPosition(float scale);
    static float fromPosition(int position);

signals:
    void valueChanged(float scale);

private:
    void updateLabel();
    QLabel* name_;
    QSlider* slider_;
    QLabel* value_;
};

}  // namespace qkv::ui
