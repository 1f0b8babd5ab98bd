#pragma once
// The controls: sentences, mode, sizes, seed, initialisation, switches and scales. Reads the
// document's Config, sends every change back through Document::edit(), and shows each
// validation message under the control it is about.

#include <QWidget>

#include <vector>

#include "core/config/validation.hpp"

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;

namespace qkv::ui {

class Document;
class FieldMessage;
class ScaleSlider;
class SentenceField;

class ControlsPanel : public QWidget {
    Q_OBJECT
public:
    explicit ControlsPanel(Document* document, QWidget* parent = nullptr);

    SentenceField* sourceField() const { return source_; }
    SentenceField* targetField() const { return target_; }
    QComboBox* modeBox() const { return mode_; }
    QSpinBox* dModelBox() const { return dModel_; }
    QSpinBox* headsBox() const { return heads_; }
    QSpinBox* seedBox() const { return seed_; }
    FieldMessage* headsMessage() const { return headsMessage_; }
    FieldMessage* dModelMessage() const { return dModelMessage_; }
    QLabel* dkLabel() const { return dk_; }

    QSize sizeHint() const override;

private:
    void showConfig(const qkv::Config& config);
    void showIssues(const std::vector<qkv::ValidationIssue>& issues);
    template <class Change>
    void editConfig(const QString& description, int key, Change change);

    Document* document_;
    SentenceField* source_;
    SentenceField* target_;
    QComboBox* mode_;
    QLabel* modeExplanation_;
    FieldMessage* modeMessage_;
    QSpinBox* dModel_;
    FieldMessage* dModelMessage_;
    QSpinBox* heads_;
    QLabel* dk_;
    FieldMessage* headsMessage_;
    QSpinBox* seed_;
    QComboBox* init_;
    QCheckBox* positional_;
    QCheckBox* bias_;
    ScaleSlider* scaleQuery_;
    ScaleSlider* scaleKey_;
    ScaleSlider* scaleValue_;
    ScaleSlider* scaleOutput_;
    FieldMessage* otherMessage_;
};

}  // namespace qkv::ui
