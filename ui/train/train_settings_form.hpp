#pragma once
// The Train tab's settings: the task (or the user's sentence pairs, a TSV file), the variant
// (factored, full or both), the model's size and the optimiser's steps, learning rate and batch.
// Picking a task fills in its defaults (TrainingSettings::defaultsFor). What does not fit is said
// in place, under its field, and problem() gives the reason Start is disabled. A TSV file is
// read off the GUI thread when chosen; a bad one shows its message under the task.

#include <QWidget>

#include <functional>

#include "ui/background/latest_task.hpp"
#include "ui/train/training_plan.hpp"

class QComboBox;
class QLabel;
class QSpinBox;

namespace qkv::ui {

class FieldMessage;
class LearningRateBox;

class TrainSettingsForm : public QWidget {
    Q_OBJECT
public:
    explicit TrainSettingsForm(QWidget* parent = nullptr);

    // What the fields say (valid or not).
    TrainingPlan plan() const;
    // Empty when training can start with plan(); else why not, in a sentence.
    QString problem() const;
    // The TSV file is being read.
    bool isCheckingFile() const { return check_.isBusy(); }

    // What "Sentence pairs (TSV)…" asks for a file (default: a file dialog); empty cancels.
    void setChooseFile(std::function<QString()> choose) { chooseFile_ = std::move(choose); }
    // Trains on the pairs in `path` (as if chosen in the dialog).
    void usePairsFile(const QString& path);

    // The fields, for the tab's wiring and tests.
    QComboBox* taskBox() const { return task_; }
    QComboBox* variantBox() const { return variant_; }
    QSpinBox* dModelBox() const { return dModel_; }
    QSpinBox* headsBox() const { return heads_; }
    QSpinBox* layersBox() const { return layers_; }
    QSpinBox* stepsBox() const { return steps_; }
    QSpinBox* batchBox() const { return batch_; }
    LearningRateBox* learningRateBox() const { return learningRate_; }
    FieldMessage* sizeMessage() const { return sizeMessage_; }
    FieldMessage* fileMessage() const { return fileMessage_; }
    QLabel* fileNote() const { return fileNote_; }

signals:
    // plan() or problem() changed.
    void changed();

private:
    void buildFields();
    void layOutFields();
    void taskChosen(int index);
    void applyDefaults(const qkv::TrainingSettings& defaults);
    void checkPairsFile();
    void updateMessages();

    QComboBox* task_;
    QComboBox* variant_;
    QSpinBox* dModel_;
    QSpinBox* heads_;
    QSpinBox* layers_;
    QSpinBox* steps_;
    LearningRateBox* learningRate_;
    QSpinBox* batch_;
    QLabel* fileNote_;
    FieldMessage* fileMessage_;
    FieldMessage* sizeMessage_;
    int lastTask_ = 0;       // the task before "Sentence pairs (TSV)…", for a cancelled dialog
    QString pairsFile_;      // chosen TSV file, empty when none
    QString fileProblem_;    // what is wrong with it, or empty
    QString fileDescription_;  // what it holds ("1,204 pairs ...") when it is fine
    bool applying_ = false;  // filling in defaults: one changed() at the end
    std::function<QString()> chooseFile_;
    struct FileCheck {
        QString problem, description;
    };
    LatestTask<FileCheck> check_{[this](FileCheck check) {
        fileProblem_ = std::move(check.problem);
        fileDescription_ = std::move(check.description);
        updateMessages();
    }};
};

}  // namespace qkv::ui
