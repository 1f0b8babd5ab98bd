#include "ui/train/train_settings_form.hpp"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <array>

#include "core/training/training_limits.hpp"
#include "ui/controls/field_message.hpp"
#include "ui/controls/note_label.hpp"
#include "ui/train/learning_rate_box.hpp"

namespace qkv::ui {
namespace {

// The task box's entries, in order; the last one asks for a file.
struct TaskChoice {
    const char* label;
    qkv::TaskKind kind;
    qkv::TargetLanguage language;
    bool file;
};
constexpr std::array<TaskChoice, 7> kTasks{{
    {QT_TRANSLATE_NOOP("qkv::ui::TrainSettingsForm", "Reverse"), qkv::TaskKind::Reverse, qkv::TargetLanguage::French, false},
    {QT_TRANSLATE_NOOP("qkv::ui::TrainSettingsForm", "Copy"), qkv::TaskKind::Copy, qkv::TargetLanguage::French, false},
    {QT_TRANSLATE_NOOP("qkv::ui::TrainSettingsForm", "Sort"), qkv::TaskKind::Sort, qkv::TargetLanguage::French, false},
    {QT_TRANSLATE_NOOP("qkv::ui::TrainSettingsForm", "Translate EN → FR"), qkv::TaskKind::Translate,
     qkv::TargetLanguage::French, false},
    {QT_TRANSLATE_NOOP("qkv::ui::TrainSettingsForm", "Translate EN → DE"), qkv::TaskKind::Translate,
     qkv::TargetLanguage::German, false},
    {QT_TRANSLATE_NOOP("qkv::ui::TrainSettingsForm", "Induction"), qkv::TaskKind::Induction,
     qkv::TargetLanguage::French, false},
    {QT_TRANSLATE_NOOP("qkv::ui::TrainSettingsForm", "Sentence pairs (TSV)…"), qkv::TaskKind::Translate,
     qkv::TargetLanguage::French, true},
}};
constexpr int kFileTask = static_cast<int>(kTasks.size()) - 1;

const char* const kTaskToolTips[] = {
    QT_TRANSLATE_NOOP("qkv::ui::TrainSettingsForm", "4-12 random symbols and the same symbols reversed: "
                                                   "cross-attention should learn the anti-diagonal"),
    QT_TRANSLATE_NOOP("qkv::ui::TrainSettingsForm", "The same symbols back: cross-attention learns the diagonal"),
    QT_TRANSLATE_NOOP("qkv::ui::TrainSettingsForm", "The symbols in ascending order"),
    QT_TRANSLATE_NOOP("qkv::ui::TrainSettingsForm", "English to French word by word from the built-in lexicon, "
                                                   "adjectives after the noun (“the black cat” → “le chat noir”)"),
    QT_TRANSLATE_NOOP("qkv::ui::TrainSettingsForm", "English to German word by word from the built-in lexicon"),
    QT_TRANSLATE_NOOP("qkv::ui::TrainSettingsForm", "Decoder only: random tokens repeated twice; look for a "
                                                   "previous-token head in layer 1 and an induction head in layer 2"),
    QT_TRANSLATE_NOOP("qkv::ui::TrainSettingsForm", "Your own sentence pairs: a UTF-8 text file, one pair per line, "
                                                   "source TAB target"),
};

// A field of a count, its range the training limits' (core/training/training_limits.hpp).
QSpinBox* spinBox(qkv::TrainingField field, int step, const QString& name, QWidget* parent)
{
    const qkv::TrainingLimit& limit = qkv::trainingLimit(field);
    auto* box = new QSpinBox(parent);
    box->setRange(static_cast<int>(limit.minimum), static_cast<int>(limit.maximum));
    box->setSingleStep(step);
    box->setAccessibleName(name);
    box->setGroupSeparatorShown(true);
    return box;
}

QString fromStd(const std::string& text) { return QString::fromStdString(text); }

// A message of the core as a sentence: capitalised unless it begins with a symbol ("h = 5 ...",
// "d_model must ..."), with a full stop.
QString sentence(const std::string& text)
{
    QString out = fromStd(text);
    if (out.isEmpty()) return out;
    const qsizetype space = out.indexOf(QLatin1Char(' '));
    const QString first = out.left(space < 0 ? out.size() : space);
    const bool word = first.size() > 1 && std::all_of(first.begin(), first.end(), [](QChar c) { return c.isLetter(); });
    if (word) out[0] = out[0].toUpper();
    if (!out.endsWith(QLatin1Char('.'))) out += QLatin1Char('.');
    return out;
}

}  // namespace

TrainSettingsForm::TrainSettingsForm(QWidget* parent)
    : QWidget(parent), task_(new QComboBox(this)), variant_(new QComboBox(this)),
      // The ranges of the training limits; h is checked against d_model in words (problem()), so
      // that changing d_model never changes h behind the user's back.
      dModel_(spinBox(qkv::TrainingField::DModel, 8, tr("d_model"), this)),
      heads_(spinBox(qkv::TrainingField::Heads, 1, tr("Heads"), this)),
      layers_(spinBox(qkv::TrainingField::Layers, 1, tr("Layers"), this)),
      steps_(spinBox(qkv::TrainingField::Steps, 100, tr("Steps"), this)), learningRate_(new LearningRateBox(this)),
      batch_(spinBox(qkv::TrainingField::Batch, 8, tr("Batch"), this)), fileNote_(noteLabel(this)),
      fileMessage_(new FieldMessage(this)), sizeMessage_(new FieldMessage(this)), chooseFile_([this] {
          return QFileDialog::getOpenFileName(this, tr("Sentence Pairs"), QDir::homePath(),
                                              tr("Sentence pairs (*.tsv *.txt);;All files (*)"));
      })
{
    buildFields();
    layOutFields();
    applyDefaults(qkv::TrainingSettings::defaultsFor(kTasks[0].kind));
    connect(task_, &QComboBox::activated, this, &TrainSettingsForm::taskChosen);
    connect(variant_, &QComboBox::currentIndexChanged, this, &TrainSettingsForm::changed);
    for (QSpinBox* box : {dModel_, heads_, layers_, steps_, batch_})
        connect(box, &QSpinBox::valueChanged, this, &TrainSettingsForm::updateMessages);
    connect(learningRate_, &QDoubleSpinBox::valueChanged, this, &TrainSettingsForm::updateMessages);
    updateMessages();
}

void TrainSettingsForm::buildFields()
{
    for (std::size_t i = 0; i < kTasks.size(); ++i) {
        task_->addItem(tr(kTasks[i].label));
        task_->setItemData(static_cast<int>(i), tr(kTaskToolTips[i]), Qt::ToolTipRole);
    }
    task_->setAccessibleName(tr("Task"));
    task_->setToolTip(tr("What the model learns; its data are generated here, training and held-out examples "
                         "disjoint"));
    variant_->addItem(tr("Factored"), 0);
    variant_->addItem(tr("Full W_i"), 1);
    variant_->addItem(tr("Both"), 2);
    variant_->setItemData(0, tr("W_i^Q and W_i^K, d_model × d_k each (the paper)"), Qt::ToolTipRole);
    variant_->setItemData(1, tr("One d_model × d_model W_i per head"), Qt::ToolTipRole);
    variant_->setItemData(2, tr("Both, trained side by side on the same data from the same seed"), Qt::ToolTipRole);
    variant_->setAccessibleName(tr("Variant"));
    variant_->setToolTip(tr("How a head forms its scores: two thin d_model × d_k matrices (the paper), one "
                            "d_model × d_model matrix W_i, or both trained on the same data from the same seed"));
    dModel_->setToolTip(tr("The width of the model: token embeddings, residual stream and every projection"));
    heads_->setToolTip(tr("Heads per attention layer; h must divide d_model (d_k = d_model / h)"));
    layers_->setToolTip(tr("Layers per stack (encoder and decoder); for induction, the decoder's layers"));
    steps_->setToolTip(tr("Optimiser steps (AdamW) to train for"));
    learningRate_->setToolTip(tr("AdamW's learning rate; the arrows double or halve it"));
    batch_->setToolTip(tr("Training examples per step"));
}

void TrainSettingsForm::layOutFields()
{
    // Three fields a row, the messages under them all: short enough to sit above the curves in
    // a narrow window, narrow enough to sit beside the progress in a wide one.
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* grid = new QGridLayout;
    grid->setHorizontalSpacing(8);
    grid->setVerticalSpacing(4);
    const auto label = [this](const QString& text, QWidget* buddy) {
        auto* out = new QLabel(text, this);
        out->setBuddy(buddy);
        return out;
    };
    const std::vector<std::pair<QLabel*, QWidget*>> fields{
        {label(tr("Task"), task_), task_},
        {label(tr("Varia&nt"), variant_), variant_},
        {label(tr("Steps"), steps_), steps_},
        {label(tr("&d_model"), dModel_), dModel_},
        {label(tr("h (heads)"), heads_), heads_},
        {label(tr("&Layers"), layers_), layers_},
        {label(tr("Learning rate"), learningRate_), learningRate_},
        {label(tr("Batch"), batch_), batch_},
    };
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const int row = static_cast<int>(i / 3), column = static_cast<int>(i % 3) * 2;
        grid->addWidget(fields[i].first, row, column);
        grid->addWidget(fields[i].second, row, column + 1);
        grid->setColumnStretch(column + 1, 1);
    }
    // Tab reads the fields as they are laid out, row by row (they were made in another order).
    for (std::size_t i = 1; i < fields.size(); ++i) setTabOrder(fields[i - 1].second, fields[i].second);
    task_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    task_->setMinimumContentsLength(14);  // "Translate EN → FR" whole, the file entry may be cut
    layout->addLayout(grid);
    layout->addWidget(fileNote_);
    layout->addWidget(fileMessage_);
    layout->addWidget(sizeMessage_);
}

TrainingPlan TrainSettingsForm::plan() const
{
    const int index = task_->currentIndex() >= 0 ? task_->currentIndex() : 0;
    const TaskChoice& choice = kTasks[static_cast<std::size_t>(index)];
    TrainingPlan out;
    out.settings = qkv::TrainingSettings::defaultsFor(choice.kind);
    qkv::TaskSettings& task = out.settings.task;
    task.kind = choice.kind;
    task.language = choice.language;
    if (choice.file) task.pairsFile = pairsFile_.toStdString();
    out.settings.d_model = dModel_->value();
    out.settings.headCount = heads_->value();
    out.settings.layers = layers_->value();
    out.settings.steps = steps_->value();
    out.settings.batch = batch_->value();
    out.settings.optimizer.learningRate = learningRate_->value();
    const int variant = variant_->currentData().toInt();
    out.bothVariants = variant == 2;
    out.settings.variant = variant == 1 ? qkv::ScoreForm::Full : qkv::ScoreForm::Factored;
    return out;
}

QString TrainSettingsForm::problem() const
{
    if (task_->currentIndex() == kFileTask) {
        if (pairsFile_.isEmpty()) return tr("Choose a file of sentence pairs.");
        if (isCheckingFile()) return tr("Reading %1…").arg(QFileInfo(pairsFile_).fileName());
        if (!fileProblem_.isEmpty()) return fileProblem_;
    }
    return sentence(plan().problem());
}

void TrainSettingsForm::taskChosen(int index)
{
    if (index == kFileTask) {
        const QString path = chooseFile_ ? chooseFile_() : QString();
        if (path.isEmpty()) {  // cancelled: the task before stays
            task_->setCurrentIndex(lastTask_);
            return;
        }
        usePairsFile(path);
        return;
    }
    lastTask_ = index;
    applyDefaults(qkv::TrainingSettings::defaultsFor(kTasks[static_cast<std::size_t>(index)].kind));
}

void TrainSettingsForm::usePairsFile(const QString& path)
{
    task_->setCurrentIndex(kFileTask);
    lastTask_ = kFileTask;
    pairsFile_ = path;
    fileProblem_.clear();
    fileDescription_.clear();
    applyDefaults(qkv::TrainingSettings::defaultsFor(qkv::TaskKind::Translate));
    checkPairsFile();
}

void TrainSettingsForm::applyDefaults(const qkv::TrainingSettings& defaults)
{
    applying_ = true;
    dModel_->setValue(static_cast<int>(defaults.d_model));
    heads_->setValue(static_cast<int>(defaults.headCount));
    layers_->setValue(static_cast<int>(defaults.layers));
    steps_->setValue(static_cast<int>(defaults.steps));
    batch_->setValue(static_cast<int>(defaults.batch));
    learningRate_->setValue(defaults.optimizer.learningRate);
    applying_ = false;
    updateMessages();
}

void TrainSettingsForm::checkPairsFile()
{
    // The same reading TrainingRun does, off the GUI thread: a large file must not freeze it.
    qkv::TaskSettings task = plan().settings.task;
    check_.request([task] {
        const auto data = qkv::TaskData::create(task);
        if (!data) return FileCheck{fromStd(data.error()), {}};
        return FileCheck{{}, fromStd(data->description())};
    });
    updateMessages();
}

void TrainSettingsForm::updateMessages()
{
    if (applying_) return;
    const bool file = task_->currentIndex() == kFileTask;
    QString note;
    if (file && !pairsFile_.isEmpty())
        note = isCheckingFile() ? tr("%1: reading…").arg(QDir::toNativeSeparators(pairsFile_))
                                : QStringLiteral("%1%2").arg(QDir::toNativeSeparators(pairsFile_),
                                                             fileDescription_.isEmpty()
                                                                 ? QString()
                                                                 : QStringLiteral(": ") + fileDescription_);
    setNote(fileNote_, note);
    fileMessage_->setMessage(file ? fileProblem_ : QString());
    sizeMessage_->setMessage(sentence(plan().problem()));
    emit changed();
}

}  // namespace qkv::ui
