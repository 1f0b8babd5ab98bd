#pragma once
// A learning rate field: shows "0.003" or "3e-05" rather than a fixed number of decimals, takes
// either spelling, and steps by doubling or halving (learning rates are tried on a log scale).

#include <QDoubleSpinBox>

namespace qkv::ui {

class LearningRateBox : public QDoubleSpinBox {
    Q_OBJECT
public:
    explicit LearningRateBox(QWidget* parent = nullptr);

    QString textFromValue(double value) const override;
    double valueFromText(const QString& text) const override;
    QValidator::State validate(QString& text, int& position) const override;
    void stepBy(int steps) override;
};

}  // namespace qkv::ui
