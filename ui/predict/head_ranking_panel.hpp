#pragma once
// The head ranking of the Predictions tab: for one prediction (the most likely token with every
// head on at the chosen position, or another of its top 5), every head still on ranked by how
// switching it off changes that token's probability (core's rankHeadsAtPosition: each candidate
// re-runs the model from its layer). The ranking runs off the GUI thread through a LatestTask,
// with a progress bar and Stop; a new sentence or model stops it and clears what it found. A row
// double-clicked (or "Switch off") switches its head off for every view.

#include <QWidget>

#include <atomic>
#include <memory>
#include <vector>

#include "core/pipeline/model_overview.hpp"
#include "ui/background/latest_task.hpp"
#include "ui/predict/prediction_data.hpp"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QTimer;

namespace qkv::ui {

class WholeModelRuns;

class HeadRankingPanel : public QWidget {
    Q_OBJECT
public:
    explicit HeadRankingPanel(WholeModelRuns* runs, QWidget* parent = nullptr);
    ~HeadRankingPanel() override;

    // The prediction to rank for: `position` of `overview` (its top 5 with every head on are the
    // tokens offered). A new sentence or model stops a ranking under way and clears the table.
    void setTarget(std::shared_ptr<const qkv::ModelOverview> overview, qkv::Index position,
                   std::shared_ptr<const PredictedTokenNames> names);
    // The token ranked for: one of the top 5 by its place (0: the most likely).
    void setTokenIndex(int index);
    std::int32_t tokenId() const;

    // Starts ranking (off the GUI thread); stop() asks it to stop after the candidate under way.
    void rank();
    void stop();
    bool isRanking() const { return ranking_.isBusy(); }

    // The last ranking, as core sorted it (empty before one, after a stop or a new sentence).
    const std::vector<qkv::HeadEffect>& effects() const { return effects_; }
    // Switches off the head of row `row` of the table.
    void switchOffRow(int row);

    QComboBox* tokenBox() const { return tokenBox_; }
    QPushButton* rankButton() const { return rankButton_; }
    QPushButton* stopButton() const { return stopButton_; }
    QPushButton* switchOffButton() const { return switchOffButton_; }
    QProgressBar* progressBar() const { return progress_; }
    QTableWidget* table() const { return table_; }
    QLabel* statusLabel() const { return status_; }

signals:
    // A ranking ended: finished, stopped or failed (statusLabel() says which).
    void rankingEnded();

private:
    // Shared with the work on the pool: what it has done, and whether it should stop.
    struct Progress {
        std::atomic<qkv::Index> done{0}, total{0};
        std::atomic<bool> stop{false};
    };
    struct Outcome {
        std::vector<qkv::HeadEffect> effects;
        QString problem;
        bool stopped = false;
        qkv::Index done = 0, total = 0;
    };
    void fillTokens();
    void clearRanking();
    void cancelRanking();
    void deliver(Outcome outcome);
    void fillTable();
    void updateControls();
    void showProgress();

    WholeModelRuns* runs_;
    std::shared_ptr<const qkv::ModelOverview> overview_;
    std::shared_ptr<const qkv::ModelOverview> rankedOverview_;  // what effects_ were ranked in
    std::shared_ptr<const PredictedTokenNames> names_;
    qkv::Index position_ = -1;
    int tokenIndex_ = 0;
    std::vector<qkv::HeadEffect> effects_;
    std::shared_ptr<Progress> progressState_;
    QComboBox* tokenBox_;
    QPushButton* rankButton_;
    QPushButton* stopButton_;
    QProgressBar* progress_;
    QLabel* status_;
    QTableWidget* table_;
    QPushButton* switchOffButton_;
    QTimer* progressTimer_;
    // Declared last: its destructor waits for the running ranking (stopped first by ~HeadRankingPanel).
    LatestTask<Outcome> ranking_{[this](Outcome outcome) { deliver(std::move(outcome)); }};
};

}  // namespace qkv::ui
