#pragma once
// The "Positions and embeddings" controls: where
// position enters (sinusoidal added to X as in the paper, rotary, rotary interleaved, none) with
// the rotary base, how a token becomes a vector (by word, by meaning), and the token-embedding
// scale with a one-click return to the paper's 1 and why it is not 1.

#include <QGroupBox>

#include "core/config/config.hpp"
#include "core/session/session.hpp"

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QToolButton;

namespace qkv::ui {

class Document;
class FieldMessage;

class InputsGroup : public QGroupBox {
    Q_OBJECT
public:
    explicit InputsGroup(Document* document, QWidget* parent = nullptr);

    // The config's inputs; the model's own input is offered only while the session has one.
    void showSession(const qkv::Session& session);
    void setMessages(const QString& positional, const QString& embeddings);

    QComboBox* positionalBox() const { return positional_; }
    QDoubleSpinBox* ropeBaseBox() const { return ropeBase_; }
    QComboBox* embeddingsBox() const { return embeddings_; }
    QDoubleSpinBox* tokenScaleBox() const { return tokenScale_; }
    QToolButton* paperScaleButton() const { return paperScale_; }
    QLabel* tokenScaleNote() const { return tokenScaleNote_; }
    FieldMessage* positionalMessage() const { return positionalMessage_; }
    QLabel* positionalNote() const { return positionalNote_; }
    FieldMessage* embeddingsMessage() const { return embeddingsMessage_; }

private:
    void showModelInput(const qkv::ModelInput* input, bool chosen);
    void showRopeScaling(const qkv::RopeScaling& scaling);

    Document* document_;
    QFormLayout* form_;
    QComboBox* positional_;
    QDoubleSpinBox* ropeBase_;
    QLabel* positionalNote_;
    FieldMessage* positionalMessage_;
    QComboBox* embeddings_;
    QDoubleSpinBox* tokenScale_;
    QToolButton* paperScale_;
    QLabel* tokenScaleNote_;
    FieldMessage* embeddingsMessage_;
};

}  // namespace qkv::ui
