#pragma once
// "Predict" tab: what the whole model does with the typed sentence, beyond one layer's weights.
//   - Attention rollout (Abnar & Zuidema 2020) from the positions after a chosen layer to the
//     input tokens (rollout_panel.hpp).
//   - The readout's top 5 at a position (a causal LM's next token, a masked LM's [MASK]), with
//     every head on beside those with the switched-off heads off (prediction_panel.hpp); the
//     position follows the selected query row where that row is a position the model predicts at.
//   - The heads ranked by how switching each off changes the chosen prediction, off the GUI
//     thread; a row switches its head off (head_ranking_panel.hpp).
//   - On a page of its own ("Generate"), a causal LM continues the prompt (the target sentence)
//     token by token, each token's attention drawn as it appears, and the result can become the
//     prompt (generation_panel.hpp); other models say there why they do not generate.
// It draws the one overview of WholeModelRuns (shared with the Model tab, which switches heads
// off too); without one it says why in place ("Open a model folder…", "Running the model…").

#include <memory>

#include "core/pipeline/model_overview.hpp"
#include "ui/predict/prediction_figures.hpp"
#include "ui/views/result_view.hpp"

class QLabel;
class QSplitter;
class QTabWidget;

namespace qkv::ui {

class GenerationPanel;
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
    GenerationPanel* generationPanel() const { return generation_; }
    QTabWidget* pages() const { return pages_; }

signals:
    // A new overview (or none) is shown in every panel.
    void overviewShown();
    // Keep as prompt: make `text` the target sentence (the window edits the document).
    void keepAsPrompt(const QString& text);

protected:
    void refresh(Changes changes) override;

private:
    void showOverview();
    void followQueryRow();
    void updateMessage();
    // Hands the generation panel the document's prompt; a hidden tab learns of a new one at its
    // next token, so a generation of an edited prompt stops then.
    void updateGenerationPrompt();

    WholeModelRuns* runs_;
    std::shared_ptr<const qkv::ModelOverview> overview_;
    std::shared_ptr<const PredictedTokenNames> names_;
    QLabel* message_;
    QTabWidget* pages_;  // the panels, and Generate
    QSplitter* panels_;
    RolloutPanel* rollout_;
    PredictionPanel* predictions_;
    HeadRankingPanel* ranking_;
    GenerationPanel* generation_;
    // The query row the position last followed (or that was selected when the view last
    // refreshed): a change of the selection that keeps it (another key) keeps the position.
    int followedRow_ = -1;
};

}  // namespace qkv::ui
