#pragma once
// The Train tab: a small transformer learns a task in front of the user. The settings
// (TrainSettingsForm), Start, Pause, Step and Reset and a progress bar with the pace and the time
// left on top; under them the loss and held-out accuracy curves per variant and every head's
// attention on a held-out example (AttentionPanel), refreshed while it learns.
//
// Not a ResultView: it drives training instead of drawing the document's Result. The training
// runs on TrainingWorker's thread. While it runs, every other tab shows the chosen model's
// current layer on the held-out example as a document preview (Document::preview: no undo
// step, never saved); Reset returns the document as it was, Keep makes the model the document
// in one undo step.

#include <QWidget>

#include <memory>
#include <optional>

#include "ui/train/training_snapshot.hpp"

class QBoxLayout;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;

namespace qkv::ui {

class AttentionPanel;
class CurveChart;
class Document;
class FieldMessage;
class TrainSettingsForm;
class TrainingWorker;

class TrainTab : public QWidget {
    Q_OBJECT
public:
    // `document`: where the preview and Keep go (null: the tab trains and draws on its own).
    explicit TrainTab(Document* document, QWidget* parent = nullptr);
    ~TrainTab() override;

    // The tab's label (with its mnemonic) and its tool tip, as the views give theirs.
    static QString title();
    static QString summary();

    // A run exists (running, paused or done) whose latest model is not kept: stopping it loses it.
    bool hasUnkeptTraining() const;
    // Stops training and forgets the run, returning the document as it was (Reset).
    void reset();

    // The parts, for the window's wiring and tests.
    TrainSettingsForm* form() const { return form_; }
    TrainingWorker* worker() const { return worker_; }
    QPushButton* startButton() const { return start_; }
    QPushButton* pauseButton() const { return pause_; }
    QPushButton* stepButton() const { return step_; }
    QPushButton* resetButton() const { return reset_; }
    QPushButton* keepButton() const { return keep_; }
    QProgressBar* progressBar() const { return progress_; }
    QLabel* progressLabel() const { return progressText_; }
    QLabel* verdictLabel() const { return verdict_; }
    FieldMessage* message() const { return message_; }
    CurveChart* lossChart() const { return loss_; }
    CurveChart* accuracyChart() const { return accuracy_; }
    // The one legend of both charts (rich text).
    QLabel* curvesLegend() const { return curvesLegend_; }
    AttentionPanel* attentionPanel() const { return attention_; }
    // Which trained variant the other tabs show: its index in the snapshot, or -1 (the document).
    QComboBox* shownModelBox() const { return shownModel_; }

protected:
    void resizeEvent(QResizeEvent* event) override;

signals:
    // A snapshot was drawn (the curves and attention are its).
    void snapshotShown(std::shared_ptr<const qkv::ui::TrainingSnapshot> snapshot);
    // Whether a run exists changed (the window asks before closing while one does).
    void runChanged(bool running);

private:
    QWidget* buildProgress();
    QWidget* buildResults();
    void startOrResume();
    void stepOnce();
    void keep();
    void show(std::shared_ptr<const TrainingSnapshot> snapshot);
    void runFailed(const QString& message);
    void updateButtons();
    void updateShownModels();
    void previewInDocument();
    void updateVerdict();
    void documentPreviewChanged(bool previewing);
    int shownVariant() const;

    Document* document_;
    TrainingWorker* worker_;
    QBoxLayout* top_ = nullptr;  // the settings and the progress: side by side when wide
    TrainSettingsForm* form_;
    QPushButton* start_;
    QPushButton* pause_;
    QPushButton* step_;
    QPushButton* reset_;
    QPushButton* keep_;
    QProgressBar* progress_;
    QLabel* progressText_;
    QLabel* verdict_;  // what factored vs full found, once the run stops
    QLabel* variantsText_;
    FieldMessage* message_;
    QLabel* startReason_;
    QComboBox* shownModel_;
    QLabel* keptNote_;
    CurveChart* loss_;
    CurveChart* accuracy_;
    AttentionPanel* attention_;
    QLabel* curvesLegend_;
    std::shared_ptr<const TrainingSnapshot> shown_;
    // The snapshot Keep made the document (no question before closing while it is the latest).
    std::shared_ptr<const TrainingSnapshot> kept_;
    bool endingPreview_ = false;  // the tab itself ends the document's preview
    bool keepWhenPaused_ = false;  // Keep was pressed while running: keep once paused
};

}  // namespace qkv::ui
