#pragma once
// The Predict tab's Patching page: the clean prompt (the document's sentence the model reads)
// beside a corrupted one the user types, the answer A and the wrong token B (by default each
// run's top-1 at the last position), and the two grids of activation patching
// (core/pipeline/patching.hpp) on a diverging scale centred on 0: heads (layers x heads) and the
// residual stream (layers x positions, the tokens that differ marked). Every patched run goes
// off the GUI thread through a LatestTask, with a progress bar and Stop; a stopped run shows the
// layers it finished. Changing only A or B recomputes the metric from the readouts core kept,
// never a patched run. A head's cell opens its maps in both runs (head_maps_dialog.hpp).
// Refusals (different lengths, a multi-token answer, no readout, an encoder-only model,
// LD(P) = LD(P')) are said in place.

#include <QWidget>

#include <atomic>
#include <memory>
#include <mutex>

#include "core/pipeline/model_overview.hpp"
#include "ui/background/latest_task.hpp"
#include "ui/patching/patching_data.hpp"

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTimer;

namespace qkv::ui {

class PatchGridCanvas;

class PatchingPanel : public QWidget {
    Q_OBJECT
public:
    explicit PatchingPanel(QWidget* parent = nullptr);
    ~PatchingPanel() override;

    // The clean prompt's run (null: none). A new one stops the work under way and, when a
    // corrupted prompt is typed, patches again.
    void setOverview(std::shared_ptr<const qkv::ModelOverview> overview);
    const std::shared_ptr<const qkv::ModelOverview>& overview() const { return overview_; }
    // Types the corrupted prompt and patches (the guide's step does this).
    void setCorruptText(const QString& text);
    void run();
    void stop();
    bool isRunning() const { return task_.isBusy(); }

    // What is shown (null before a run, or after a refusal).
    const std::shared_ptr<const PatchingPrompts>& prompts() const { return prompts_; }
    const std::shared_ptr<const qkv::PatchingReadouts>& readouts() const { return readouts_; }
    const std::shared_ptr<const qkv::PatchingGrids>& grids() const { return grids_; }
    // How many times the patched runs were computed (a test counts that A or B alone starts none).
    int patchingRunsStarted() const { return started_; }
    bool stopped() const { return stopped_; }
    // Stop pressed after `patches` patches of the next run, as a user would (tests: a stopped run
    // at a known place, timing-free); -1: never.
    void setStopAfter(qkv::Index patches) { stopAfter_ = patches; }
    QString problem() const;

    QLineEdit* corruptEdit() const { return corrupt_; }
    QLineEdit* answerEdit() const { return answer_; }
    QLineEdit* wrongEdit() const { return wrong_; }
    QPushButton* runButton() const { return runButton_; }
    QPushButton* stopButton() const { return stopButton_; }
    PatchGridCanvas* headsCanvas() const { return heads_; }
    PatchGridCanvas* residualCanvas() const { return residual_; }
    QLabel* statusLabel() const { return status_; }
    QLabel* summaryLabel() const { return summary_; }

protected:
    // A new sentence arrived while the page was hidden: patch it now.
    void showEvent(QShowEvent* event) override;

signals:
    // Patching ended: finished, stopped or refused.
    void runEnded();
    // New grids are shown (the answer A is `answer`).
    void gridsShown(std::int32_t answer);

private:
    struct Progress {
        std::atomic<qkv::Index> done{0}, total{0};
        std::atomic<bool> stop{false};
        // The layers finished so far, handed over by the worker after each layer and taken by the
        // progress timer, so the grids fill in as they are computed (under `mutex`).
        std::mutex mutex;
        std::shared_ptr<const PatchingPrompts> prompts;
        std::shared_ptr<const qkv::PatchingReadouts> finished;
    };
    struct Outcome {
        std::shared_ptr<const PatchingPrompts> prompts;
        std::shared_ptr<const qkv::PatchingReadouts> readouts;
        QString problem;
        bool stopped = false;
        qkv::Index done = 0, total = 0;
    };
    void deliver(Outcome outcome);
    // Shows `readouts` of `prompts` (the layers so far or all of them), A and B defaulting to each
    // run's top-1 when the prompts are new.
    void takeReadouts(std::shared_ptr<const PatchingPrompts> prompts,
                      std::shared_ptr<const qkv::PatchingReadouts> readouts);
    // A and B read from their boxes, the grids from the readouts kept: nothing is run again.
    void showMetric();
    void clearGrids(const QString& status);
    void openHead(int row, int column);
    void showProgress();
    void setStatus(const QString& text);

    std::shared_ptr<const qkv::ModelOverview> overview_;
    std::shared_ptr<const PatchingPrompts> prompts_;
    std::shared_ptr<const qkv::PatchingReadouts> readouts_;
    std::shared_ptr<const qkv::PatchingGrids> grids_;
    std::shared_ptr<Progress> progressState_;
    int started_ = 0;
    qkv::Index stopAfter_ = -1;
    bool stopped_ = false;
    bool pending_ = false;  // a patching deferred while hidden (hidden views defer their work)
    QLabel* clean_;
    QLineEdit* corrupt_;
    QLineEdit* answer_;
    QLineEdit* wrong_;
    QPushButton* runButton_;
    QPushButton* stopButton_;
    QProgressBar* progress_;
    QLabel* status_;
    QLabel* summary_;
    PatchGridCanvas* heads_;
    PatchGridCanvas* residual_;
    QTimer* progressTimer_;
    // Declared last: its destructor waits for the running work (stopped first by ~PatchingPanel).
    LatestTask<Outcome> task_{[this](Outcome outcome) { deliver(std::move(outcome)); }};
};

}  // namespace qkv::ui
