#pragma once
// The "Circuits" tab: what a head's weights mean in the model's vocabulary (Elhage et al. 2021,
// core/circuits/head_circuits.hpp), for the whole model the document's layer belongs to
// (WholeModelRuns, as the Model and Predict tabs). Three pages:
//   This head       the selected head's QK and OV circuits for the prompt's tokens, and the
//                   eigenvalues of its OV circuit (head_circuits_panel.hpp)
//   Copying scores  every head's copying score, layers x heads (copying_scores_panel.hpp)
//   Heads map       every head placed by two of its scores (heads_map_panel.hpp)
// The head shown is the shared selection's (the layer the document shows, the selected head);
// a click on a cell or a point shows that head here and asks the window to open its layer in
// every view (openLayerRequested), as the Model tab's click does.
//
// W_U W_E (~1 s for a large vocabulary) and the copying scores are computed off the GUI thread,
// once per model (circuit_store.hpp keeps them for the figures); a model without a readout is
// said in place (core's noCircuitsReason).

#include <QPointer>

#include <atomic>
#include <memory>

#include "core/checkpoint/checkpoint.hpp"
#include "core/circuits/head_circuits.hpp"
#include "ui/background/latest_task.hpp"
#include "ui/circuits/circuit_figures.hpp"
#include "ui/views/result_view.hpp"

class QLabel;
class QStackedWidget;
class QTabWidget;
class QTimer;

namespace qkv::ui {

class CopyingScoresPanel;
class HeadCircuitsPanel;
class HeadsMapPanel;
class WholeModelRuns;

class CircuitsView : public ResultView {
    Q_OBJECT
public:
    CircuitsView(HeadSelection* selection, WholeModelRuns* runs, QWidget* parent = nullptr);
    ~CircuitsView() override;

    static constexpr QLatin1String kId = kCircuitsViewId;
    QString title() const override;
    QString summary() const override;
    QString id() const override { return kId; }

    // The head the panels show (model order, head from 0; {-1, -1}: none).
    qkv::CircuitHead head() const { return head_; }
    // Shows `head` in This head (and its page); asks the window to open its layer in every view.
    void openHead(qkv::ModelHead head);
    // What the tab says instead of its pages ("" while it shows them).
    QString placeholderText() const;
    // The copying scores of the model shown (null while they are computed).
    const std::shared_ptr<const qkv::MatrixD>& copyingScores() const { return scores_; }

    QTabWidget* pages() const { return pages_; }
    HeadCircuitsPanel* headPanel() const { return headPanel_; }
    CopyingScoresPanel* copyingPanel() const { return copyingPanel_; }
    HeadsMapPanel* headsMapPanel() const { return mapPanel_; }

    QSize sizeHint() const override { return {1000, 700}; }

signals:
    // Open `layer` of `model`'s checkpoint in every view, with head `head` (0-based) selected.
    void openLayerRequested(std::shared_ptr<const qkv::PretrainedModel> model, qkv::CheckpointLayer layer, int head);

protected:
    void refresh(Changes changes) override;
    // The overview may have changed while the tab was in the background (heads switched off in
    // the Model tab): caught up on show.
    void showEvent(QShowEvent* event) override;

private:
    struct Progress {
        std::atomic<qkv::Index> done{0}, total{0};
        std::atomic<bool> stop{false};
    };
    struct Computed {
        std::shared_ptr<const qkv::PretrainedModel> model;
        bool basis = false;  // W_U W_E stored; else `problem`
        std::shared_ptr<const qkv::MatrixD> scores;
        QString problem;
    };
    void showState();
    void startModel();
    void deliver(const Computed& computed);
    void followSelection();
    void showProgress();
    void updatePanels();

    WholeModelRuns* runs_;
    std::shared_ptr<const qkv::PretrainedModel> model_;  // whose circuits are computed or shown
    std::shared_ptr<const qkv::MatrixD> scores_;
    QString problem_;
    std::shared_ptr<Progress> progress_;
    qkv::CircuitHead head_{-1, -1};
    qkv::CircuitHead followed_{-1, -1};  // the shared selection head_ last followed
    QStackedWidget* stack_;
    QLabel* placeholder_;
    QTabWidget* pages_;
    HeadCircuitsPanel* headPanel_;
    CopyingScoresPanel* copyingPanel_;
    HeadsMapPanel* mapPanel_;
    QTimer* timer_;
    // Declared last: its destructor waits for the running work (stopped first by the destructor).
    LatestTask<Computed> computing_{[this](const Computed& computed) { deliver(computed); }};
};

}  // namespace qkv::ui
