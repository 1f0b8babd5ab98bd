#include "ui/train/train_tab.hpp"

#include <QComboBox>
#include <QBoxLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

#include "ui/controls/field_message.hpp"
#include "ui/controls/note_label.hpp"
#include "ui/controls/wheel_guard.hpp"
#include "ui/document/document.hpp"
#include "ui/train/attention_panel.hpp"
#include "ui/train/curve_chart.hpp"
#include "ui/train/train_settings_form.hpp"
#include "ui/train/training_worker.hpp"

namespace qkv::ui {
namespace {

QPushButton* button(const QString& text, const QString& toolTip, QWidget* parent)
{
    auto* out = new QPushButton(text, parent);
    out->setToolTip(toolTip);
    return out;
}

QLabel* wrappedLabel(QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    return label;
}

}  // namespace

TrainTab::TrainTab(Document* document, QWidget* parent)
    : QWidget(parent), document_(document), worker_(new TrainingWorker(this)), form_(new TrainSettingsForm(this)),
      start_(button(tr("St&art"), tr("Train with these settings"), this)),
      pause_(button(tr("Pa&use"), tr("Stop after the current step; Resume goes on"), this)),
      step_(button(tr("Step"), tr("One optimiser step, then pause"), this)),
      reset_(button(tr("Reset"), tr("Forget this run: the other tabs show your document again"), this)),
      keep_(button(tr("&Keep"), tr("Make the shown model your document (one undo step)"), this)),
      progress_(new QProgressBar(this)), progressText_(wrappedLabel(this)), verdict_(wrappedLabel(this)), variantsText_(wrappedLabel(this)),
      message_(new FieldMessage(this)), startReason_(noteLabel(this)), shownModel_(new QComboBox(this)),
      keptNote_(noteLabel(this)),
      // No chart titles: the value axes say what each chart is, and the plots keep the height.
      loss_(new CurveChart({}, tr("loss"), false, this)),
      accuracy_(new CurveChart({}, tr("held-out accuracy"), true, this)),
      attention_(new AttentionPanel(this)), curvesLegend_(new QLabel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 4);
    top_ = new QBoxLayout(QBoxLayout::TopToBottom);
    top_->addWidget(form_);
    top_->addWidget(buildProgress(), 1);
    layout->addLayout(top_);
    layout->addWidget(buildResults(), 1);
    guardWheel(this);

    connect(form_, &TrainSettingsForm::changed, this, &TrainTab::updateButtons);
    connect(start_, &QPushButton::clicked, this, &TrainTab::startOrResume);
    connect(pause_, &QPushButton::clicked, this, [this] {
        worker_->pause();
        updateButtons();
    });
    connect(step_, &QPushButton::clicked, this, &TrainTab::stepOnce);
    connect(reset_, &QPushButton::clicked, this, &TrainTab::reset);
    connect(keep_, &QPushButton::clicked, this, &TrainTab::keep);
    connect(worker_, &TrainingWorker::published, this, &TrainTab::show);
    connect(worker_, &TrainingWorker::failed, this, &TrainTab::runFailed);
    connect(attention_, &AttentionPanel::layerChanged, this, &TrainTab::previewInDocument);
    connect(attention_, &AttentionPanel::layerChanged, this, &TrainTab::updateVerdict);
    connect(shownModel_, &QComboBox::activated, this, [this] {
        if (shownVariant() < 0) {
            endingPreview_ = true;
            if (document_) document_->endPreview();
            endingPreview_ = false;
        }
        previewInDocument();
        updateButtons();
    });
    if (document_) connect(document_, &Document::previewChanged, this, &TrainTab::documentPreviewChanged);
    updateShownModels();
    updateButtons();
}

TrainTab::~TrainTab()
{
    // The worker's thread may post until it has stopped: it goes first, with its children.
    delete worker_;
}

QString TrainTab::title() { return tr("T&rain"); }

QString TrainTab::summary()
{
    return tr("Train a small transformer on a task and watch its attention learn; factored W_i^Q, W_i^K against "
              "one full W_i, same data and seed");
}

QWidget* TrainTab::buildProgress()
{
    auto* box = new QWidget(this);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {start_, pause_, step_, reset_}) buttons->addWidget(b);
    progress_->setFormat(tr("no steps yet"));
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setAccessibleName(tr("Training progress"));
    progress_->setMinimumWidth(160);
    buttons->addWidget(progress_, 1);
    layout->addLayout(buttons);
    layout->addWidget(startReason_);
    layout->addWidget(message_);
    auto* status = new QHBoxLayout;
    status->addWidget(progressText_, 1);
    shownModel_->setAccessibleName(tr("Other tabs show"));
    shownModel_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    shownModel_->setToolTip(tr("While it learns, every other tab can show a trained model's chosen layer on the "
                               "held-out example, or your document"));
    auto* shownLabel = new QLabel(tr("Other tabs show"), box);
    shownLabel->setBuddy(shownModel_);
    status->addWidget(shownLabel, 0, Qt::AlignTop);
    status->addWidget(shownModel_, 0, Qt::AlignTop);
    status->addWidget(keep_, 0, Qt::AlignTop);
    layout->addLayout(status);
    variantsText_->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(variantsText_);
    verdict_->setAccessibleName(tr("What the run found"));
    layout->addWidget(verdict_);
    layout->addWidget(keptNote_);
    layout->addStretch(1);
    return box;
}

QWidget* TrainTab::buildResults()
{
    // The curves in a column, the heads beside them: the heads need the room.
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    auto* column = new QWidget(splitter);
    auto* layout = new QVBoxLayout(column);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* charts = new QSplitter(Qt::Vertical, column);
    charts->addWidget(loss_);
    charts->addWidget(accuracy_);
    charts->setChildrenCollapsible(false);
    layout->addWidget(charts, 1);
    // One legend for both charts, under them: the charts keep their width for the curves.
    curvesLegend_->setWordWrap(true);
    curvesLegend_->setTextFormat(Qt::RichText);
    layout->addWidget(curvesLegend_);
    splitter->addWidget(column);
    splitter->addWidget(attention_);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    splitter->setSizes({400, 600});
    splitter->setChildrenCollapsible(false);
    return splitter;
}

void TrainTab::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    // Wide: the settings beside the progress, so the pictures get the height; narrow: above it.
    const bool wide = width() >= 2 * form_->sizeHint().width() + 80;
    top_->setDirection(wide ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
    top_->setStretch(0, wide ? 1 : 0);
}

}  // namespace qkv::ui
