// TrainTab's buttons and what a snapshot changes (the layout is train_tab.cpp).
#include <QComboBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

#include <climits>

#include "ui/controls/field_message.hpp"
#include "ui/controls/note_label.hpp"
#include "ui/document/document.hpp"
#include "ui/train/attention_panel.hpp"
#include "ui/train/curve_chart.hpp"
#include "ui/train/progress_text.hpp"
#include "ui/train/train_settings_form.hpp"
#include "ui/train/train_tab.hpp"
#include "ui/train/trained_session.hpp"
#include "ui/train/training_curves.hpp"
#include "ui/train/training_worker.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/train/variant_text.hpp"
#include "ui/train/verdict_text.hpp"

namespace qkv::ui {

bool TrainTab::hasUnkeptTraining() const { return worker_->hasRun() && (!kept_ || shown_ != kept_); }

void TrainTab::startOrResume()
{
    if (worker_->hasRun()) {
        if (worker_->isPaused() && !worker_->isFinished()) worker_->resume();
    } else {
        if (!form_->problem().isEmpty()) return;
        message_->setMessage({});
        setNote(keptNote_, {});
        worker_->start(form_->plan());
        emit runChanged(true);
    }
    updateButtons();
}

void TrainTab::stepOnce()
{
    if (!worker_->hasRun()) {
        if (!form_->problem().isEmpty()) return;
        message_->setMessage({});
        setNote(keptNote_, {});
        worker_->start(form_->plan(), true);  // the untrained model first, then one step
        emit runChanged(true);
    }
    worker_->step();
    updateButtons();
}

void TrainTab::reset()
{
    const bool hadRun = worker_->hasRun() || shown_ != nullptr;
    worker_->stop();
    keepWhenPaused_ = false;
    shown_.reset();
    kept_.reset();
    loss_->clear();
    accuracy_->clear();
    attention_->setSnapshot(nullptr);
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setFormat(tr("no steps yet"));
    progressText_->clear();
    curvesLegend_->clear();
    variantsText_->clear();
    verdict_->clear();
    setNote(keptNote_, {});
    if (document_ && document_->isPreviewing()) {
        endingPreview_ = true;
        document_->endPreview();  // training stopped without Keep: the document returns
        endingPreview_ = false;
    }
    updateShownModels();
    updateButtons();
    if (hadRun) emit runChanged(false);
}

void TrainTab::keep()
{
    if (!document_ || !shown_ || shownVariant() < 0) return;
    if (worker_->hasRun() && !worker_->isPaused() && !worker_->isFinished()) {
        // What is kept is what the views show: pause first, keep the model it paused at.
        keepWhenPaused_ = true;
        worker_->pause();
        updateButtons();
        return;
    }
    const int variant = shownVariant();
    const TrainedVariant& v = shown_->variants[static_cast<std::size_t>(variant)];
    endingPreview_ = true;
    document_->keep(trainedSession(*shown_, static_cast<std::size_t>(variant), attention_->layer(),
                                   document_->viewOptions()),
                    keepDescription(*v.model));
    endingPreview_ = false;
    kept_ = shown_;
    setNote(keptNote_, tr("Kept: %1. Edit > Undo returns to your document as it was.")
                           .arg(QString::fromStdString(v.model->provenance())));
    updateButtons();
}

void TrainTab::updateVerdict()
{
    verdict_->setText(shown_ ? verdictText(*shown_, attention_->layer()) : QString());
    verdict_->setVisible(!verdict_->text().isEmpty());
}

void TrainTab::show(std::shared_ptr<const TrainingSnapshot> snapshot)
{
    shown_ = std::move(snapshot);
    const TrainingSnapshot& s = *shown_;
    progress_->setRange(0, static_cast<int>(std::min<long>(s.totalSteps, INT_MAX)));
    progress_->setValue(static_cast<int>(std::min<long>(s.steps, INT_MAX)));
    progress_->setFormat(tr("%1 / %2 steps").arg(groupedInteger(s.steps), groupedInteger(s.totalSteps)));
    progressText_->setText(progressText(s));
    variantsText_->setText(variantsText(s));
    updateVerdict();
    loss_->setCurves(lossCurves(s), s.totalSteps);
    accuracy_->setCurves(accuracyCurves(s), s.totalSteps);
    curvesLegend_->setText(qkv::ui::curvesLegend(s));
    attention_->setSnapshot(shown_);
    updateShownModels();
    previewInDocument();
    if (keepWhenPaused_ && s.state != TrainingSnapshot::State::Running) {
        keepWhenPaused_ = false;
        keep();
    }
    updateButtons();
    emit snapshotShown(shown_);
}

void TrainTab::runFailed(const QString& message)
{
    worker_->stop();
    message_->setMessage(tr("Could not start: %1").arg(message));
    updateButtons();
    emit runChanged(false);
}

void TrainTab::updateButtons()
{
    const bool run = worker_->hasRun();
    const bool paused = worker_->isPaused();
    const bool finished = worker_->isFinished();
    const QString problem = form_->problem();
    const bool canStart = problem.isEmpty();
    start_->setText(run && paused && !finished ? tr("Res&ume") : tr("St&art"));
    start_->setEnabled(run ? paused && !finished : canStart);
    start_->setToolTip(run ? tr("Go on training") : canStart ? tr("Train with these settings") : problem);
    pause_->setEnabled(run && !paused && !finished);
    step_->setEnabled(run ? !finished : canStart);
    step_->setToolTip(canStart || run ? tr("One optimiser step, then pause") : problem);
    reset_->setEnabled(run || shown_);
    keep_->setEnabled(document_ && shown_ && shownVariant() >= 0 && shown_ != kept_ && !keepWhenPaused_);
    form_->setEnabled(!run);
    setNote(startReason_, !run && !canStart ? tr("Start is off: %1").arg(problem) : QString());
}

int TrainTab::shownVariant() const
{
    const QVariant data = shownModel_->currentData();
    return data.isValid() ? data.toInt() : -1;
}

void TrainTab::updateShownModels()
{
    QList<int> variants;
    QStringList texts;
    if (shown_)
        for (std::size_t i = 0; i < shown_->variants.size(); ++i) {
            variants << static_cast<int>(i);
            texts << (shown_->variants[i].variant() == qkv::ScoreForm::Full ? tr("Full W_i model") : tr("Factored model"));
        }
    texts << tr("Your document");
    QStringList current;
    for (int i = 0; i < shownModel_->count(); ++i) current << shownModel_->itemText(i);
    if (texts == current) return;
    const QSignalBlocker block(shownModel_);
    shownModel_->clear();
    for (int i = 0; i < variants.size(); ++i) shownModel_->addItem(texts[i], variants[i]);
    shownModel_->addItem(texts.back(), -1);
    shownModel_->setCurrentIndex(0);  // a new run: the first model, shown everywhere
    shownModel_->setEnabled(!variants.isEmpty());
}

void TrainTab::previewInDocument()
{
    if (!document_ || !shown_) return;
    const int variant = shownVariant();
    const int layer = attention_->layer();
    if (variant < 0 || layer < 0) return;
    document_->preview(trainedSession(*shown_, static_cast<std::size_t>(variant), layer, document_->viewOptions()));
}

void TrainTab::documentPreviewChanged(bool previewing)
{
    if (previewing || endingPreview_) return;
    // An edit, undo or another document ended the preview: the other tabs show the document
    // until a model is chosen here again.
    const QSignalBlocker block(shownModel_);
    shownModel_->setCurrentIndex(shownModel_->count() - 1);
    if (shown_)
        setNote(keptNote_, tr("The other tabs show your document again; choose a model above to show it there."));
    updateButtons();
}

}  // namespace qkv::ui
