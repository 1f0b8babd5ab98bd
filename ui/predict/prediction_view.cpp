#include "ui/predict/prediction_view.hpp"

#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include "ui/document/head_selection.hpp"
#include "ui/predict/generation_panel.hpp"
#include "ui/predict/head_ranking_panel.hpp"
#include "ui/predict/prediction_panel.hpp"
#include "ui/predict/rollout_panel.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"

namespace qkv::ui {

PredictionView::PredictionView(HeadSelection* selection, WholeModelRuns* runs, QWidget* parent)
    : ResultView(selection, Change::Cell, parent), runs_(runs), message_(new QLabel(this)),
      pages_(new QTabWidget(this)), panels_(new QSplitter(Qt::Horizontal, this)), rollout_(new RolloutPanel(panels_)),
      predictions_(new PredictionPanel(runs, this)), ranking_(new HeadRankingPanel(runs, this)),
      generation_(new GenerationPanel(runs, this))
{
    message_->setWordWrap(true);
    message_->setTextFormat(Qt::PlainText);
    message_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    auto* right = new QSplitter(Qt::Vertical, panels_);
    right->addWidget(predictions_);
    right->addWidget(ranking_);
    // The chart first: its bars and values need the room; the ranking table scrolls.
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);
    right->setChildrenCollapsible(false);
    panels_->addWidget(rollout_);
    panels_->addWidget(right);
    // Half each: the rollout's square map labels every token at 1000 x 700, and the chart's
    // bars, token labels and values read whole.
    panels_->setStretchFactor(0, 1);
    panels_->setStretchFactor(1, 1);
    panels_->setChildrenCollapsible(false);
    // Generation on a page of its own: the panels keep the tab's room, and its grid of every
    // head's maps gets the whole height. The panels sit in a page that stays when they hide.
    auto* predictionsPage = new QWidget(pages_);
    auto* pageLayout = new QVBoxLayout(predictionsPage);
    pageLayout->setContentsMargins(0, 4, 0, 0);
    // Below the panels' minimum (a small window under a notice) they scroll: the tab never asks
    // the window for more height than it has, which would make the window grow by itself.
    auto* scroll = new QScrollArea(predictionsPage);
    scroll->setAccessibleName(tr("Rollout and predictions"));
    // No Tab stop of its own after the panels it holds: Tab goes through them, and the area
    // scrolls to the one focused.
    scroll->setFocusPolicy(Qt::NoFocus);
    scroll->setWidget(panels_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    pageLayout->addWidget(scroll);
    pages_->setDocumentMode(true);
    pages_->addTab(predictionsPage, tr("Rollout and predictions"));
    pages_->addTab(generation_, tr("Generate"));
    pages_->setTabToolTip(0, tr("Attention rollout, the top 5 predictions and the heads they depend on"));
    pages_->setTabToolTip(1, tr("A causal language model continues the target sentence, each token's attention "
                                "drawn as it appears"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 4);
    layout->addWidget(message_);
    layout->addWidget(pages_, 1);

    // The overview arrives (or fails) while this tab may be hidden: refresh when shown.
    connect(runs_, &WholeModelRuns::overviewChanged, this, [this] { invalidate(Change::Options); });
    connect(runs_, &WholeModelRuns::busyChanged, this, &PredictionView::updateMessage);
    connect(predictions_, &PredictionPanel::positionChanged, this,
            [this](qkv::Index position) { ranking_->setTarget(overview_, position, names_); });
    connect(generation_, &GenerationPanel::keepAsPrompt, this, &PredictionView::keepAsPrompt);
    connect(generation_, &GenerationPanel::tokenShown, this, &PredictionView::updateGenerationPrompt);
    if (this->selection()) followedRow_ = this->selection()->queryRow();
    showOverview();
    updateGenerationPrompt();
}

QString PredictionView::title() const { return tr("Pre&dict"); }
QString PredictionView::summary() const
{
    return tr(
        "The whole model on the sentence: attention rollout to the input tokens, the top 5 predictions with "
        "every head on and with heads switched off, and the heads the prediction depends on");
}

void PredictionView::saveFigureOptions(FigureOptions& options) const
{
    options.rolloutStop = rollout_->stop();
    options.predictionPosition = predictions_->position();
}

QString PredictionView::message() const { return message_->text(); }

void PredictionView::refresh(Changes changes)
{
    runs_->demand();
    showOverview();
    updateGenerationPrompt();
    // The user selected another query row (a new result only keeps the selection inside it).
    // Another key, or a span starting at the same query, is not another row: the position the
    // user chose here stays.
    if (changes.testFlag(Change::Cell) && !changes.testFlag(Change::Result) && selection() &&
        selection()->queryRow() != followedRow_)
        followQueryRow();
    if (selection()) followedRow_ = selection()->queryRow();
}

void PredictionView::showOverview()
{
    const std::shared_ptr<const qkv::ModelOverview>& overview = runs_->overview();
    if (overview != overview_) {
        if (overview && (!overview_ || overview->model != overview_->model))
            names_ = std::make_shared<const PredictedTokenNames>(*overview->model);
        overview_ = overview;
        rollout_->setOverview(overview_);
        predictions_->setOverview(overview_, names_);
        ranking_->setTarget(overview_, predictions_->position(), names_);
        emit overviewShown();
    }
    panels_->setVisible(overview_ != nullptr);
    updateMessage();
}

void PredictionView::followQueryRow()
{
    if (!overview_ || !selection()) return;
    const qkv::Index position = queryRowPosition(*overview_, runs_->shownLayer(), selection()->queryRow());
    if (position >= 0) predictions_->setPosition(position);
}

void PredictionView::updateGenerationPrompt()
{
    GenerationPrompt prompt;
    prompt.model = runs_->model();
    if (result()) {
        prompt.source = result()->config.sourceText;
        prompt.target = result()->config.targetText;
    }
    if (overview_ && overview_->model == prompt.model) prompt.overview = overview_;
    // Without a model the message above says how to get one, and there is nothing to page through.
    pages_->setVisible(prompt.model != nullptr || overview_ != nullptr);
    generation_->setPrompt(std::move(prompt));
}

void PredictionView::updateMessage()
{
    QString text;
    if (runs_->isBusy()) {
        text = tr("Running the model…");
    } else if (!overview_ && !runs_->model() && !runs_->missingTokenizer().isEmpty()) {
        // A checkpoint just opened whose folder lacks its tokenizer: say so, never "open a model".
        text = runs_->missingTokenizer();
    } else if (!overview_ && !runs_->model()) {
        text =
            tr("Open a model folder with File > Open Checkpoint… and show one of its layers to see the attention "
               "rollout and what the model predicts, with every head on and with heads switched off.");
        if (result() && !runs_->problem().isEmpty()) text += QLatin1Char(' ') + runs_->problem();
    } else if (!overview_) {
        text = runs_->problem().isEmpty()
                   ? tr("Running the model…")
                   : tr("The whole model cannot run on these sentences: %1").arg(runs_->problem());
    }
    message_->setText(text);
    message_->setVisible(!text.isEmpty());
}

}  // namespace qkv::ui
