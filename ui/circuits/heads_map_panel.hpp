#pragma once
// The Circuits tab's "Heads map" page: every head of every self-attention layer as a point, on
// two axes chosen among its role scores, its copying score and its ablation effect
// (heads_map_data.hpp). The ablation effect re-runs the model once per head (core's
// rankHeadsAtPosition) for the model's default prediction (Predict's: a causal LM's next token):
// computed on demand (Compute), off the GUI thread, with progress and Stop.
// Hover names a head and its scores; a click opens it (headClicked).

#include <QWidget>

#include <atomic>
#include <memory>

#include "core/pipeline/model_overview.hpp"
#include "ui/background/latest_task.hpp"
#include "ui/circuits/circuit_store.hpp"
#include "ui/circuits/heads_map_data.hpp"

class QComboBox;
class QHBoxLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QTimer;

namespace qkv::ui {

class FigureCanvas;

class HeadsMapPanel : public QWidget {
    Q_OBJECT
public:
    explicit HeadsMapPanel(QWidget* parent = nullptr);
    ~HeadsMapPanel() override;

    // The model's overview and copying scores (null while they are computed), the head selected.
    void setData(std::shared_ptr<const qkv::ModelOverview> overview, std::shared_ptr<const qkv::MatrixD> copying,
                 qkv::ModelHead selected);
    void setAxes(HeadsMapAxes axes);
    HeadsMapAxes axes() const { return axes_; }
    const HeadsMapData& data() const { return data_; }

    // Ranks every head by its ablation effect on the default prediction (off the GUI thread).
    void computeAblation();
    void stopAblation();
    bool isRanking() const { return rankingPending_; }

    // For tests and keyboard users: a point's centre in canvas coordinates ((-1, -1): not drawn).
    QPoint pointCenter(qkv::ModelHead head) const;
    QString toolTipAt(const QPointF& position) const;
    FigureCanvas* canvas() const { return canvas_; }
    QComboBox* xBox() const { return xBox_; }
    QComboBox* yBox() const { return yBox_; }
    QPushButton* computeButton() const { return compute_; }
    QLabel* statusLabel() const { return status_; }

signals:
    void headClicked(qkv::ModelHead head);

private:
    struct Progress {
        std::atomic<qkv::Index> done{0}, total{0};
        std::atomic<bool> stop{false};
    };
    struct Outcome {
        AblationEffects effects;
        QString problem;
    };
    QHBoxLayout* makeToolbar();
    void rebuild();
    void deliver(Outcome outcome);
    void updateControls();
    qkv::ModelHead headAt(const QPointF& position) const;

    std::shared_ptr<const qkv::ModelOverview> overview_;
    std::shared_ptr<const qkv::MatrixD> copying_;
    qkv::ModelHead selected_{-1, -1};
    HeadsMapAxes axes_;
    HeadsMapData data_;
    QString problem_;
    bool rankingPending_ = false;  // requested, not delivered yet
    std::shared_ptr<Progress> progress_;
    QComboBox* xBox_;
    QComboBox* yBox_;
    QPushButton* compute_;
    QPushButton* stop_;
    QProgressBar* bar_;
    QLabel* status_;
    FigureCanvas* canvas_;
    QTimer* timer_;
    // Declared last: its destructor waits for the running ranking (stopped first by the destructor).
    LatestTask<Outcome> ranking_{[this](Outcome outcome) { deliver(std::move(outcome)); }};
};

}  // namespace qkv::ui
