#include "ui/circuits/circuits_view.hpp"

#include <QLabel>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <new>

#include "ui/circuits/circuit_store.hpp"
#include "ui/circuits/copying_scores_panel.hpp"
#include "ui/circuits/head_circuits_panel.hpp"
#include "ui/circuits/heads_map_panel.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"

namespace qkv::ui {

CircuitsView::CircuitsView(HeadSelection* selection, WholeModelRuns* runs, QWidget* parent)
    : ResultView(selection, Change::Head, parent), runs_(runs), stack_(new QStackedWidget(this)),
      placeholder_(new QLabel(stack_)), pages_(new QTabWidget(stack_)), headPanel_(new HeadCircuitsPanel(pages_)),
      copyingPanel_(new CopyingScoresPanel(pages_)), mapPanel_(new HeadsMapPanel(pages_)), timer_(new QTimer(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(stack_);
    // It quotes data (a sentence the tokenizer refused, a file's path): shown as it is.
    placeholder_->setTextFormat(Qt::PlainText);
    placeholder_->setAlignment(Qt::AlignCenter);
    placeholder_->setWordWrap(true);
    placeholder_->setMargin(24);
    placeholder_->setForegroundRole(QPalette::PlaceholderText);
    pages_->setDocumentMode(true);
    pages_->addTab(headPanel_, tr("This head"));
    pages_->addTab(copyingPanel_, tr("Copying scores"));
    pages_->addTab(mapPanel_, tr("Heads map"));
    pages_->setTabToolTip(0, tr("The selected head's QK and OV circuits in the vocabulary, and its OV eigenvalues"));
    pages_->setTabToolTip(1, tr("Every head's copying score: does it write what it attends to into the prediction?"));
    pages_->setTabToolTip(2, tr("Every head placed by two of its scores"));
    stack_->addWidget(placeholder_);
    stack_->addWidget(pages_);
    connect(copyingPanel_, &CopyingScoresPanel::headClicked, this, &CircuitsView::openHead);
    connect(mapPanel_, &HeadsMapPanel::headClicked, this, &CircuitsView::openHead);
    connect(runs_, &WholeModelRuns::overviewChanged, this, &CircuitsView::showState);
    connect(runs_, &WholeModelRuns::busyChanged, this, &CircuitsView::showState);
    timer_->setInterval(100);
    connect(timer_, &QTimer::timeout, this, &CircuitsView::showProgress);
    showState();
}

CircuitsView::~CircuitsView()
{
    if (progress_) progress_->stop = true;
}

QString CircuitsView::title() const { return tr("C&ircuits"); }

QString CircuitsView::summary() const
{
    return tr(
        "What each head's weights mean in the vocabulary: its QK and OV circuits, copying scores, and every "
        "head placed by what it does");
}

void CircuitsView::refresh(Changes)
{
    if (result()) runs_->demand();
    followSelection();
    showState();
}

void CircuitsView::showEvent(QShowEvent* event)
{
    ResultView::showEvent(event);
    showState();
}

QString CircuitsView::placeholderText() const
{
    const std::shared_ptr<const qkv::ModelOverview>& overview = runs_->overview();
    if (!result()) return tr("No result yet.");
    if (!runs_->model()) {
        if (!runs_->missingTokenizer().isEmpty()) return runs_->missingTokenizer();
        return tr(
            "The circuits are those of a whole model: open a model folder with File > Open Checkpoint… or "
            "Open Model… (GPT-2, LLaMA, Mistral, Qwen, Gemma, Phi-3, OLMo 2, GPT-NeoX), or the demo model.");
    }
    if (const std::string reason = qkv::noCircuitsReason(*runs_->model()); !reason.empty())
        return tr("No QK and OV circuits for this model: %1").arg(QString::fromStdString(reason));
    if (!overview) return runs_->problem().isEmpty() ? tr("Running the model…") : runs_->problem();
    return {};
}

void CircuitsView::showState()
{
    const QString text = placeholderText();
    placeholder_->setText(text);
    stack_->setCurrentWidget(text.isEmpty() ? static_cast<QWidget*>(pages_) : placeholder_);
    // A tab in the background does no work: refresh() brings it here again when it is shown.
    if (!text.isEmpty() || !isVisible()) return;
    if (runs_->overview()->model != model_) startModel();
    followSelection();
    updatePanels();
}

void CircuitsView::startModel()
{
    if (progress_) progress_->stop = true;
    model_ = runs_->overview()->model;
    scores_ = storedCopyingScores(model_);
    problem_.clear();
    progress_ = std::make_shared<Progress>();
    if (scores_) return showProgress();
    computing_.request([model = model_, progress = progress_] {
        Computed computed{model, false, nullptr, {}};
        try {
            qkv::Expected<std::shared_ptr<const qkv::CircuitBasis>> basis = circuitBasisOf(model, &progress->stop);
            computed.basis = static_cast<bool>(basis);
            if (!basis) computed.problem = QString::fromStdString(basis.error());
        } catch (const std::bad_alloc&) {
            computed.problem = tr("Not enough memory for W_U W_E of this model.");
        }
        return computed;
    });
    timer_->start();
    showProgress();
}

void CircuitsView::deliver(const Computed& computed)
{
    if (computed.model != model_) return;
    problem_ = computed.problem;
    if (computed.scores) {
        scores_ = computed.scores;
        timer_->stop();
    } else if (computed.basis) {
        headPanel_->setBasisReady();
        // Then every head's copying score, a layer at a time.
        computing_.request([model = model_, progress = progress_] {
            Computed out{model, true, nullptr, {}};
            qkv::Expected<std::shared_ptr<const qkv::MatrixD>> scores =
                copyingScoresOf(model, [&progress](qkv::Index done, qkv::Index total) {
                    progress->done = done;
                    progress->total = total;
                    return !progress->stop.load();
                });
            if (scores)
                out.scores = *scores;
            else
                out.problem = QString::fromStdString(scores.error());
            return out;
        });
    } else {
        timer_->stop();
    }
    showProgress();
    updatePanels();
}

void CircuitsView::showProgress()
{
    if (!progress_) return;
    QString status;
    if (!problem_.isEmpty())
        status = problem_;
    else if (!scores_ && !storedBasis(model_))
        status = tr("Computing W_U W_E, the readout times the token embeddings (once per model)…");
    else if (!scores_)
        status = tr("Computing the copying scores: layer %1 of %2…")
                     .arg(progress_->done.load())
                     .arg(progress_->total.load());
    copyingPanel_->setProgress(progress_->done, progress_->total, status);
}

namespace {

bool isSelfAttentionHead(const qkv::ModelOverview& overview, const qkv::CircuitHead& head)
{
    return head.layer >= 0 && head.layer < overview.layerCount() && head.head >= 0 &&
           head.head < overview.layer(head.layer).layer.headCount &&
           overview.layer(head.layer).layer.kind != qkv::AttentionMode::Cross;
}

}  // namespace

void CircuitsView::followSelection()
{
    const std::shared_ptr<const qkv::ModelOverview>& overview = runs_->overview();
    if (!overview) return;
    // The shared selection when it changed; a head clicked here whose layer the window has not
    // opened yet stays until then.
    const qkv::CircuitHead shared{runs_->shownLayer(), selection()->head()};
    const bool changed = !(shared == followed_);
    followed_ = shared;
    if (isSelfAttentionHead(*overview, shared) && (changed || !isSelfAttentionHead(*overview, head_))) {
        head_ = shared;
        return;
    }
    if (isSelfAttentionHead(*overview, head_)) return;
    for (qkv::Index l = 0; l < overview->layerCount(); ++l)  // the first self-attention head
        if (isSelfAttentionHead(*overview, {l, 0})) {
            head_ = {l, 0};
            return;
        }
}

void CircuitsView::updatePanels()
{
    const std::shared_ptr<const qkv::ModelOverview>& overview = runs_->overview();
    if (!overview || !placeholderText().isEmpty()) return;
    if (head_.layer >= 0) headPanel_->setHead(overview, head_);
    copyingPanel_->setScores(overview, scores_, {head_.layer, head_.head});
    mapPanel_->setData(overview, scores_, {head_.layer, head_.head});
}

void CircuitsView::openHead(qkv::ModelHead head)
{
    const std::shared_ptr<const qkv::ModelOverview> overview = runs_->overview();
    if (!overview || head.layer < 0 || head.layer >= overview->layerCount()) return;
    head_ = {head.layer, head.head};
    pages_->setCurrentWidget(headPanel_);
    updatePanels();
    if (head.layer == runs_->shownLayer())
        selection()->setHead(static_cast<int>(head.head));
    else
        emit openLayerRequested(overview->model, overview->layer(head.layer).layer, static_cast<int>(head.head));
}

}  // namespace qkv::ui
