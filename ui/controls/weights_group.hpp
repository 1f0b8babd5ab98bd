#pragma once
// The "Weights" controls: a label saying where the current weights come from (generated from
// seed S, a file, edited heads, presets), the seed and initialisation with a
// note when they do not apply, and the biases switch.

#include <QGroupBox>

#include "core/session/session.hpp"

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;

namespace qkv::ui {

class Document;
class FieldMessage;

class WeightsGroup : public QGroupBox {
    Q_OBJECT
public:
    explicit WeightsGroup(Document* document, QWidget* parent = nullptr);

    void showSession(const qkv::Session& session);
    void setMessage(const QString& message);

    QLabel* originLabel() const { return origin_; }
    QSpinBox* seedBox() const { return seed_; }
    QLabel* seedNote() const { return seedNote_; }
    QComboBox* initBox() const { return init_; }
    QLabel* initNote() const { return initNote_; }
    QCheckBox* biasBox() const { return bias_; }
    FieldMessage* message() const { return message_; }

private:
    Document* document_;
    QLabel* origin_;
    QSpinBox* seed_;
    QLabel* seedNote_;
    QComboBox* init_;
    QLabel* initNote_;
    QCheckBox* bias_;
    FieldMessage* message_;
};

}  // namespace qkv::ui
