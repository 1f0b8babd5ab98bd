#pragma once
// "Predict" tab: what the whole model does with the typed sentence, beyond one layer's weights.
//   - Attention rollout (Abnar & Zuidema 2020) from the positions after a chosen layer to the
//     input tokens (rollout_panel.hpp).
//   - The readout's top 5 at a position (a causal LM's next token, a masked LM's [MASK]), with
//     every head on beside those with the switched-off heads off (prediction_panel.hpp); the
//     position follows the selected query row where that row is a position the model predicts at.
//   - The heads ranked by how switching each off changes the chosen prediction, off the GUI
//     thread; a row switches its head off (head_ranking_panel.hpp).
// It draws the one overview of WholeModelRuns (shared with the Model tab, which switches heads
// off too); without one it says why in place ("Open a model folder…", "Running the model…").

#include <memory>

#include "core/pipeline/model_overview.hpp"
#include "ui/views/result_view.hpp"
#include "ui/wholemodel/prediction_figures.hpp"

class QLabel;
class QSplitter;

namespace qkv::ui {

class HeadRankingPanel;
class PredictionPanel;
class RolloutPanel;
class WholeModelRuns;

class PredictionView : public ResultView {
    Q_OBJECT
public:
    PredictionView(HeadSelection* selection, WholeModelRuns* runs, QWidget* parent = nullptr);

    static constexpr QLatin1String kId = kPredictionViewId;
    QString title() const override;
    QString summary() const override;
    QString id() const override { return kId; }
    void saveFigureOptions(FigureOptions& options) const override;

    // The overview shown (null: the message says why).
    const std::shared_ptr<const qkv::ModelOverview>& overview() const { return overview_; }
    // The line above the panels: why there is nothing to show, or that the model is running.
    QString message() const;
    RolloutPanel* rolloutPanel() const { return rollout_; }
    PredictionPanel* predictionPanel() const { return predictions_; }
    HeadRankingPanel* rankingPanel() const { return ranking_; }

signals:
    // A new overview (or none) is shown in every panel.
    void overviewShown();

protected:
    void refresh(Changes changes) override;

private:
    void showOverview();
    void followQueryRow();
    void updateMessage();

    WholeModelRuns* runs_;
    std::shared_ptr<const qkv::ModelOverview> overview_;
    std::shared_ptr<const PredictedTokenNames> names_;
    QLabel* message_;
    QSplitter* panels_;
    RolloutPanel* rollout_;
    PredictionPanel* predictions_;
    HeadRankingPanel* ranking_;
};

}  // namespace qkv::ui
