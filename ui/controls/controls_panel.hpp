#pragma once
// The controls: sentences, mode, sizes (d_model, h, g), positions and embeddings, the weights
// and where they come from, and the scales. Reads the document's session, sends every change
// back through the document (one undo step each), and shows each validation message under
// the control it is about.

#include <QWidget>

#include <vector>

#include "core/config/validation.hpp"
#include "core/session/session.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;
class QToolButton;

namespace qkv::ui {

class Document;
class FieldMessage;
class InputsGroup;
class ScaleSlider;
class SentenceField;
class WeightsGroup;

class ControlsPanel : public QWidget {
    Q_OBJECT
public:
    explicit ControlsPanel(Document* document, QWidget* parent = nullptr);

    SentenceField* sourceField() const { return source_; }
    SentenceField* targetField() const { return target_; }
    QComboBox* modeBox() const { return mode_; }
    QSpinBox* slidingWindowBox() const { return window_; }
    QSpinBox* dModelBox() const { return dModel_; }
    QSpinBox* headsBox() const { return heads_; }
    // g: key/value heads. Item data: 0 for "follows h", else g.
    QComboBox* keyValueHeadsBox() const { return keyValueHeads_; }
    FieldMessage* headsMessage() const { return headsMessage_; }
    FieldMessage* dModelMessage() const { return dModelMessage_; }
    FieldMessage* keyValueHeadsMessage() const { return keyValueHeadsMessage_; }
    // d_k: 0 (shown as "auto: d_model / h") or the heads' own width.
    QSpinBox* headDimBox() const { return dk_; }
    InputsGroup* inputs() const { return inputs_; }
    WeightsGroup* weights() const { return weights_; }
    QSpinBox* seedBox() const;

    QSize sizeHint() const override;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* makeAttentionGroup();
    QWidget* makeWindowRow();
    void fitModeExplanation();
    QWidget* makeScalesGroup();
    void showSession();
    void showKeyValueHeads(const qkv::Config& config);
    void showIssues(const std::vector<qkv::ValidationIssue>& issues);

    Document* document_;
    SentenceField* source_;
    SentenceField* target_;
    QComboBox* mode_;
    QLabel* modeExplanation_;
    FieldMessage* modeMessage_;
    QSpinBox* window_;             // causal mode's sliding window; 0: none
    QWidget* windowRow_ = nullptr;
    QSpinBox* dModel_;
    FieldMessage* dModelMessage_;
    QSpinBox* heads_;
    QSpinBox* dk_;
    FieldMessage* headsMessage_;
    QComboBox* keyValueHeads_;
    FieldMessage* keyValueHeadsMessage_;
    InputsGroup* inputs_;
    WeightsGroup* weights_;
    ScaleSlider* scaleQuery_;
    ScaleSlider* scaleKey_;
    ScaleSlider* scaleValue_;
    ScaleSlider* scaleOutput_;
};

}  // namespace qkv::ui
