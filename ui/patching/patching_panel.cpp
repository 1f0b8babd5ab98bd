#include "ui/patching/patching_panel.hpp"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>
#include <utility>

#include "ui/patching/head_maps_dialog.hpp"
#include "ui/patching/patch_grid_canvas.hpp"

namespace qkv::ui {

PatchingPanel::PatchingPanel(QWidget* parent)
    : QWidget(parent), clean_(new QLabel(this)), corrupt_(new QLineEdit(this)), answer_(new QLineEdit(this)),
      wrong_(new QLineEdit(this)), runButton_(new QPushButton(tr("Patch"), this)),
      stopButton_(new QPushButton(tr("Stop"), this)), progress_(new QProgressBar(this)), status_(new QLabel(this)),
      summary_(new QLabel(this)), heads_(new PatchGridCanvas(QSize(420, 300), this)),
      residual_(new PatchGridCanvas(QSize(560, 300), this)), progressTimer_(new QTimer(this))
{
    clean_->setTextFormat(Qt::PlainText);
    clean_->setWordWrap(true);
    clean_->setAccessibleName(tr("Clean prompt"));
    corrupt_->setAccessibleName(tr("Corrupted prompt"));
    corrupt_->setPlaceholderText(tr("the clean prompt with one word changed"));
    answer_->setAccessibleName(tr("Answer A"));
    answer_->setToolTip(tr("The clean answer, one token (default: the clean run's top token at the last position)"));
    wrong_->setAccessibleName(tr("Wrong token B"));
    wrong_->setToolTip(tr("The wrong answer, one token (default: the corrupted run's top token at the last position)"));
    runButton_->setAccessibleName(tr("Patch"));
    stopButton_->setAccessibleName(tr("Stop patching"));
    stopButton_->setEnabled(false);
    progress_->setAccessibleName(tr("Patches done"));
    progress_->setFormat(tr("%v of %m patches"));
    progress_->hide();
    for (QLabel* label : {status_, summary_}) {
        label->setTextFormat(Qt::PlainText);
        label->setWordWrap(true);
    }
    status_->setAccessibleName(tr("Patching status"));
    summary_->setAccessibleName(tr("What the grids show"));
    heads_->setAccessibleName(tr("Patching heads grid"));
    residual_->setAccessibleName(tr("Patching residual grid"));
    heads_->setMinimumHint(QSize(260, 200));
    residual_->setMinimumHint(QSize(320, 200));

    auto* form = new QFormLayout;
    form->addRow(tr("Clean:"), clean_);
    auto* corruptRow = new QHBoxLayout;
    corruptRow->addWidget(corrupt_, 1);
    corruptRow->addWidget(runButton_);
    corruptRow->addWidget(stopButton_);
    form->addRow(tr("Corrupted:"), corruptRow);
    auto* tokens = new QHBoxLayout;
    auto* answerLabel = new QLabel(tr("Answer A:"), this);
    answerLabel->setBuddy(answer_);
    auto* wrongLabel = new QLabel(tr("Wrong B:"), this);
    wrongLabel->setBuddy(wrong_);
    tokens->addWidget(answerLabel);
    tokens->addWidget(answer_, 1);
    tokens->addWidget(wrongLabel);
    tokens->addWidget(wrong_, 1);
    tokens->addWidget(progress_, 2);
    form->addRow(tokens);
    if (auto* label = qobject_cast<QLabel*>(form->labelForField(corruptRow))) label->setBuddy(corrupt_);
    auto* grids = new QSplitter(Qt::Horizontal, this);
    grids->addWidget(heads_);
    grids->addWidget(residual_);
    grids->setStretchFactor(0, 2);
    grids->setStretchFactor(1, 3);
    grids->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(form);
    layout->addWidget(status_);
    layout->addWidget(grids, 1);
    layout->addWidget(summary_);
    setTabOrder(corrupt_, runButton_);
    setTabOrder(runButton_, stopButton_);
    setTabOrder(stopButton_, answer_);
    setTabOrder(answer_, wrong_);
    setTabOrder(wrong_, heads_);
    setTabOrder(heads_, residual_);

    progressTimer_->setInterval(100);  // at most ten updates a second
    connect(progressTimer_, &QTimer::timeout, this, &PatchingPanel::showProgress);
    connect(runButton_, &QPushButton::clicked, this, &PatchingPanel::run);
    connect(corrupt_, &QLineEdit::returnPressed, this, &PatchingPanel::run);
    connect(stopButton_, &QPushButton::clicked, this, &PatchingPanel::stop);
    connect(answer_, &QLineEdit::editingFinished, this, &PatchingPanel::showMetric);
    connect(wrong_, &QLineEdit::editingFinished, this, &PatchingPanel::showMetric);
    connect(heads_, &PatchGridCanvas::cellActivated, this, &PatchingPanel::openHead);
    task_.setBusyCallback([this](bool busy) {
        stopButton_->setEnabled(busy);
        if (busy)
            progressTimer_->start();
        else
            progressTimer_->stop();
    });
    clearGrids(
        tr("Type the clean prompt with one word changed, then Patch: each head's output and each position "
           "of the residual stream is taken from the clean run into the corrupted one."));
}

PatchingPanel::~PatchingPanel()
{
    if (progressState_) progressState_->stop = true;
}

void PatchingPanel::setOverview(std::shared_ptr<const qkv::ModelOverview> overview)
{
    if (overview == overview_) return;
    overview_ = std::move(overview);
    QStringList tokens;
    if (overview_)
        for (const qkv::SubwordToken& token : overview_->sentences.sequence.tokens)
            tokens << QString::fromStdString(token.display);
    clean_->setText(overview_ ? tokens.join(QLatin1Char(' ')) : tr("(no model runs on the sentence)"));
    if (progressState_) progressState_->stop = true;
    task_.cancel();
    progress_->hide();
    prompts_.reset();
    readouts_.reset();
    clearGrids(QString());
    pending_ = overview_ && !corrupt_->text().trimmed().isEmpty();
    if (pending_ && isVisible()) run();
}

void PatchingPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (pending_) run();
}

void PatchingPanel::setCorruptText(const QString& text)
{
    corrupt_->setText(text);
    run();
}

void PatchingPanel::run()
{
    if (!overview_)
        return clearGrids(tr("Open a causal language model (File > Examples has the demo model) to patch."));
    if (corrupt_->text().trimmed().isEmpty()) return clearGrids(tr("Type the corrupted prompt first."));
    pending_ = false;
    if (progressState_) progressState_->stop = true;
    auto progress = std::make_shared<Progress>();
    progressState_ = progress;
    ++started_;
    stopped_ = false;
    progress_->setRange(0, 0);
    progress_->show();
    setStatus(tr("Patching…"));
    task_.request([overview = overview_, text = corrupt_->text(), progress, stopAfter = stopAfter_] {
        Outcome outcome;
        qkv::Expected<PatchingPrompts> prompts = patchingPrompts(overview, text);
        if (!prompts) {
            outcome.problem = QString::fromStdString(prompts.error());
            return outcome;
        }
        auto shared = std::make_shared<const PatchingPrompts>(std::move(*prompts));
        outcome.prompts = shared;
        const auto layerDone = [&progress, &shared](const qkv::PatchingReadouts& soFar) {
            auto finished = std::make_shared<const qkv::PatchingReadouts>(soFar);
            const std::lock_guard<std::mutex> lock(progress->mutex);
            progress->prompts = shared;
            progress->finished = std::move(finished);
        };
        qkv::Expected<qkv::PatchingReadouts> readouts = qkv::patchingReadouts(
            *shared->model, shared->runs,
            [&progress, stopAfter](qkv::Index done, qkv::Index total) {
                progress->done = done;
                progress->total = total;
                if (stopAfter >= 0 && done >= stopAfter) progress->stop = true;
                return !progress->stop.load();
            },
            layerDone);
        if (!readouts)
            outcome.problem = QString::fromStdString(readouts.error());
        else
            outcome.readouts = std::make_shared<const qkv::PatchingReadouts>(std::move(*readouts));
        outcome.stopped = progress->stop.load();
        outcome.done = progress->done;
        outcome.total = progress->total;
        return outcome;
    });
}

void PatchingPanel::stop()
{
    if (!progressState_ || !task_.isBusy()) return;
    progressState_->stop = true;
    setStatus(tr("Stopping after the patch under way…"));
}

void PatchingPanel::deliver(Outcome outcome)
{
    progress_->hide();
    progressState_.reset();
    stopped_ = outcome.stopped;
    if (!outcome.problem.isEmpty() || !outcome.readouts) {
        prompts_.reset();
        readouts_.reset();
        clearGrids(tr("Cannot patch: %1").arg(outcome.problem));
        emit runEnded();
        return;
    }
    takeReadouts(outcome.prompts, outcome.readouts);
    if (outcome.stopped && grids_)
        setStatus(tr("Stopped after %1 of %2 patches: the grids show the %3 layers finished.")
                      .arg(outcome.done)
                      .arg(outcome.total)
                      .arg(readouts_->layersDone));
    emit runEnded();
}

void PatchingPanel::takeReadouts(std::shared_ptr<const PatchingPrompts> prompts,
                                 std::shared_ptr<const qkv::PatchingReadouts> readouts)
{
    const bool newPrompts =
        !prompts_ || prompts_->corruptText != prompts->corruptText || prompts_->overview != prompts->overview;
    prompts_ = std::move(prompts);
    readouts_ = std::move(readouts);
    // The defaults: each run's top-1 at the last position, as core gives them.
    if (newPrompts || answer_->text().isEmpty()) answer_->setText(tokenText(*prompts_->model, prompts_->cleanTop));
    if (newPrompts || wrong_->text().isEmpty()) wrong_->setText(tokenText(*prompts_->model, prompts_->corruptTop));
    showMetric();
}

void PatchingPanel::showMetric()
{
    if (!prompts_ || !readouts_) return;
    const qkv::PretrainedModel& model = *prompts_->model;
    qkv::Expected<std::int32_t> answer = qkv::singleTokenId(model, answer_->text().toStdString(), "answer");
    if (!answer) return clearGrids(tr("Answer A: %1").arg(QString::fromStdString(answer.error())));
    qkv::Expected<std::int32_t> wrong = qkv::singleTokenId(model, wrong_->text().toStdString(), "wrong token");
    if (!wrong) return clearGrids(tr("Wrong B: %1").arg(QString::fromStdString(wrong.error())));
    qkv::Expected<qkv::PatchingGrids> grids = qkv::patchingGrids(model, *readouts_, *answer, *wrong);
    if (!grids) return clearGrids(tr("Cannot measure: %1").arg(QString::fromStdString(grids.error())));
    grids_ = std::make_shared<const qkv::PatchingGrids>(std::move(*grids));
    auto headsData = std::make_shared<const PatchGridData>(headsGridData(*prompts_, *grids_));
    heads_->setData(headsData);
    residual_->setData(std::make_shared<const PatchGridData>(residualGridData(*prompts_, *grids_)));
    const auto cellName = [this](const PatchGridCanvas* canvas, const QString& what) {
        return [this, canvas, what](int row, int column) {
            const std::shared_ptr<const PatchGridData>& data = canvas->data();
            if (!data || row >= data->values.rows() || column >= data->values.cols()) return QString();
            const double r = data->values(row, column);
            return std::isfinite(r) ? tr("%1 %2 of layer %3: recovers %4 of the answer")
                                          .arg(what, data->columnLabels.value(column), data->rowLabels.value(row))
                                          .arg(r, 0, 'f', 2)
                                    : tr("%1 %2 of layer %3: not patched (stopped)")
                                          .arg(what, data->columnLabels.value(column), data->rowLabels.value(row));
        };
    };
    heads_->setCellName(cellName(heads_, tr("Head")));
    residual_->setCellName(cellName(residual_, tr("Position")));
    setStatus(tr("LD(clean) = %1, LD(corrupted) = %2 (logit of «%3» minus logit of «%4» at the last position)")
                  .arg(grids_->cleanDifference, 0, 'f', 3)
                  .arg(grids_->corruptDifference, 0, 'f', 3)
                  .arg(tokenChip(model, grids_->answer), tokenChip(model, grids_->wrong)));
    summary_->setText(headsSentence(*prompts_, *grids_) + QLatin1Char(' ') + residualSentence(*prompts_, *grids_));
    summary_->show();
    PatchingShown shown = shownPatching();
    shown.prompts = prompts_;
    shown.grids = grids_;
    setShownPatching(std::move(shown));
    emit gridsShown(grids_->answer);
}

void PatchingPanel::clearGrids(const QString& status)
{
    grids_.reset();
    heads_->setData(nullptr);
    residual_->setData(nullptr);
    summary_->clear();
    summary_->hide();
    setStatus(status);
}

void PatchingPanel::setStatus(const QString& text)
{
    status_->setText(text);
    status_->setVisible(!text.isEmpty());
}

QString PatchingPanel::problem() const { return grids_ ? QString() : status_->text(); }

void PatchingPanel::openHead(int row, int column)
{
    if (!prompts_ || !grids_ || row >= static_cast<int>(grids_->heads.size()) ||
        column >= static_cast<int>(grids_->heads[static_cast<std::size_t>(row)].size()))
        return;
    auto* dialog = new HeadMapsDialog(
        prompts_, {row, column}, grids_->heads[static_cast<std::size_t>(row)][static_cast<std::size_t>(column)], this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
}

void PatchingPanel::showProgress()
{
    if (!progressState_) return;
    const qkv::Index total = progressState_->total;
    if (total <= 0) return;
    progress_->setRange(0, static_cast<int>(total));
    progress_->setValue(static_cast<int>(progressState_->done));
    std::shared_ptr<const PatchingPrompts> prompts;
    std::shared_ptr<const qkv::PatchingReadouts> finished;
    {
        const std::lock_guard<std::mutex> lock(progressState_->mutex);
        prompts = progressState_->prompts;
        finished = std::exchange(progressState_->finished, nullptr);
    }
    if (prompts && finished) takeReadouts(std::move(prompts), std::move(finished));
}

}  // namespace qkv::ui
