#include "ui/predict/generation_panel.hpp"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStringDecoder>
#include <QTableWidget>
#include <QVBoxLayout>

#include <utility>

#include "ui/figures/shown_text.hpp"
#include "ui/predict/generation_attention.hpp"
#include "ui/predict/prediction_data.hpp"
#include "ui/predict/table_cell.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"

namespace qkv::ui {
namespace {

enum Column { PositionColumn, TokenColumn, ProbabilityColumn, TopColumn, ColumnCount };

// The tokens one generation may ask for in the window: each is a run of every layer, drawn live.
constexpr int kMostTokens = 256;

}  // namespace

GenerationPanel::GenerationPanel(WholeModelRuns* runs, QWidget* parent)
    : QWidget(parent), runs_(runs), reason_(new QLabel(this)), controls_(new QWidget(this)),
      tokens_(new QSpinBox(controls_)), temperature_(new QDoubleSpinBox(controls_)), seed_(new QSpinBox(controls_)),
      generate_(new QPushButton(tr("Generate"), controls_)), keep_(new QPushButton(tr("Keep as prompt"), controls_)),
      status_(new QLabel(this)), body_(new QSplitter(Qt::Horizontal, this)),
      table_(new QTableWidget(0, ColumnCount, body_)), attention_(new GenerationAttention(body_))
{
    reason_->setTextFormat(Qt::PlainText);
    reason_->setWordWrap(true);
    reason_->setAlignment(Qt::AlignLeft | Qt::AlignTop);  // alone on the page, it takes its height
    reason_->setMargin(8);
    reason_->setForegroundRole(QPalette::PlaceholderText);
    tokens_->setRange(1, kMostTokens);
    tokens_->setValue(20);
    tokens_->setToolTip(tr("How many tokens to generate after the prompt (the model's positions limit the total)"));
    temperature_->setRange(0.0, 5.0);
    temperature_->setDecimals(2);
    temperature_->setSingleStep(0.1);
    temperature_->setValue(0.0);
    temperature_->setSpecialValueText(tr("0 (greedy)"));
    temperature_->setToolTip(
        tr("0: always the most likely token (greedy). Above 0: sampled from softmax(z / T), "
           "flatter as T grows"));
    seed_->setRange(0, 999999);
    seed_->setToolTip(tr("The seed of the sampling: the same seed, the same tokens (unused when greedy)"));
    generate_->setToolTip(
        tr("Continue the prompt (the target sentence) one token at a time; Stop ends it after the "
           "token under way"));
    keep_->setToolTip(tr("Make the prompt followed by the generated text the target sentence (one undo step)"));
    // Two short rows rather than one long one: the page is 600 pixels wide at the smallest window.
    auto* settings = new QHBoxLayout;
    const auto labelled = [&](const QString& text, QWidget* box) {
        auto* label = new QLabel(text, controls_);
        label->setBuddy(box);
        settings->addWidget(label);
        settings->addWidget(box);
        settings->addSpacing(8);
    };
    labelled(tr("Tokens"), tokens_);
    labelled(tr("Temperature"), temperature_);
    labelled(tr("Seed"), seed_);
    settings->addStretch(1);
    status_->setTextFormat(Qt::PlainText);  // core's messages and token texts are data
    status_->setWordWrap(true);
    auto* actions = new QHBoxLayout;
    actions->addWidget(generate_, 0, Qt::AlignTop);
    actions->addWidget(keep_, 0, Qt::AlignTop);
    actions->addSpacing(8);
    actions->addWidget(status_, 1);
    auto* rows = new QVBoxLayout(controls_);
    rows->setContentsMargins(0, 0, 0, 0);
    rows->addLayout(settings);
    rows->addLayout(actions);

    table_->setHorizontalHeaderLabels({tr("position"), tr("token"), tr("p"), tr("top 5")});
    table_->horizontalHeaderItem(PositionColumn)->setToolTip(tr("The token's position in the sequence, from 0"));
    table_->horizontalHeaderItem(ProbabilityColumn)
        ->setToolTip(tr("The token's probability under the model (softmax of the logits, at temperature 1)"));
    table_->horizontalHeaderItem(TopColumn)->setToolTip(
        tr("The five most likely tokens at that step, with their probabilities"));
    table_->verticalHeader()->setVisible(false);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setTabKeyNavigation(false);  // Tab leaves the table; arrow keys move between its cells
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(TopColumn, QHeaderView::Stretch);
    table_->setWordWrap(false);
    // A token of many bytes ("<0xAA>然语言处理") is elided rather than pushing the top 5 out of view.
    table_->horizontalHeader()->setMaximumSectionSize(table_->fontMetrics().averageCharWidth() * 14);
    table_->setTextElideMode(Qt::ElideRight);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->setAccessibleName(tr("Generated tokens"));
    body_->addWidget(table_);
    body_->addWidget(attention_);
    // Half each: the grid of maps is as wide as its height allows, the table's top 5 read wide.
    body_->setStretchFactor(0, 1);
    body_->setStretchFactor(1, 1);
    body_->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(reason_);
    layout->addWidget(controls_);
    layout->addWidget(body_, 1);

    connect(generate_, &QPushButton::clicked, this, [this] { isGenerating() ? stop() : generate(); });
    connect(keep_, &QPushButton::clicked, this, [this] { emit keepAsPrompt(promptWithGenerated()); });
    connect(temperature_, &QDoubleSpinBox::valueChanged, this, &GenerationPanel::updateControls);
    // The heads it generates with are no longer the tab's: the rest would answer another question.
    connect(runs_, &WholeModelRuns::headsOffChanged, this, [this] {
        if (!isGenerating() || mailbox_->stop) return;
        stopReason_ = tr("a head was switched off or on");
        mailbox_->stop = true;
    });
    clearGenerated();
}

void GenerationPanel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    // The maps beside the table on a wide page, below it on a narrow one.
    body_->setOrientation(width() >= height() ? Qt::Horizontal : Qt::Vertical);
}

GenerationPanel::~GenerationPanel()
{
    // The token under way is finished; the task's destructor then waits only for it.
    if (mailbox_) mailbox_->stop = true;
}

void GenerationPanel::setPrompt(GenerationPrompt prompt)
{
    const bool same = prompt.model == prompt_.model && prompt.target == prompt_.target;
    prompt_ = std::move(prompt);
    if (!same) {
        cancel();
        clearGenerated();
    }
    const QString reason = notApplicable();
    reason_->setText(reason);
    reason_->setVisible(!reason.isEmpty());
    controls_->setVisible(reason.isEmpty());
    body_->setVisible(reason.isEmpty());
    updateControls();
}

QString GenerationPanel::notApplicable() const
{
    if (!prompt_.model) return {};
    const qkv::FamilyRecipe& recipe = prompt_.model->recipe;
    if (recipe.causal() && recipe.readout == qkv::ReadoutKind::CausalLm) return {};
    qkv::GenerationOptions one;
    one.newTokens = 1;
    const qkv::Status why = qkv::checkGeneration(*prompt_.model, 1, one);
    return why ? QString() : messageSentence(why.error());
}

void GenerationPanel::generate()
{
    if (!prompt_.model || !notApplicable().isEmpty()) return;
    cancel();
    clearGenerated();
    model_ = prompt_.model;
    promptText_ = prompt_.target;
    options_ = qkv::GenerationOptions();
    options_.newTokens = tokens_->value();
    options_.temperature = temperature_->value();
    options_.seed = static_cast<std::uint64_t>(seed_->value());
    options_.run.ablatedHeads = runs_->headsOff();
    options_.run.keepScores = false;  // attention is shown, never the scores; as the overview's runs
    // The overview's run of the prompt with these heads off: only the new positions are computed.
    const std::shared_ptr<const qkv::ModelOverview>& overview = prompt_.overview;
    if (overview && overview->model == model_ && overview->run &&
        overview->run->ablatedHeads == options_.run.ablatedHeads && !overview->run->keepScores)
        options_.run.previous = overview->run;
    auto mailbox = std::make_shared<Mailbox>();
    mailbox_ = mailbox;
    status_->setText(tr("Running the prompt…"));
    // The work hands each token over at once; the panel outlives it (its destructor waits for it).
    generation_.request([prompt = prompt_, options = options_, mailbox, this] {
        return generateSteps(
            prompt, options,
            [&](QStringList promptTexts) {
                {
                    const std::lock_guard lock(mailbox->mutex);
                    mailbox->prompt = std::move(promptTexts);
                }
                post(mailbox);
            },
            [&](GeneratedStep step) {
                {
                    const std::lock_guard lock(mailbox->mutex);
                    mailbox->steps.push_back(std::move(step));
                }
                post(mailbox);
                return !mailbox->stop.load();
            });
    });
    options_.run.previous.reset();  // the work holds it; the panel keeps no run alive
    updateControls();
}

void GenerationPanel::post(const std::shared_ptr<Mailbox>& mailbox)
{
    // Any thread. One queued drain at a time: tokens chosen faster than the GUI shows them are
    // shown together.
    {
        const std::lock_guard lock(mailbox->mutex);
        if (mailbox->posted) return;
        mailbox->posted = true;
    }
    QMetaObject::invokeMethod(
        this,
        [this, mailbox] {
            if (mailbox == mailbox_) drain();
        },
        Qt::QueuedConnection);
}

void GenerationPanel::drain()
{
    std::optional<QStringList> prompt;
    std::vector<GeneratedStep> steps;
    {
        const std::lock_guard lock(mailbox_->mutex);
        prompt.swap(mailbox_->prompt);
        steps.swap(mailbox_->steps);
        mailbox_->posted = false;
    }
    if (prompt) {
        promptLength_ = prompt->size();
        attention_->begin(*model_, std::move(*prompt), options_.newTokens, options_.run.ablatedHeads);
    }
    if (steps.empty()) return;
    for (GeneratedStep& step : steps) showStep(std::move(step));
    table_->scrollToBottom();
    if (!mailbox_->stop)
        status_->setText(tr("Generating: %1 of %2 tokens…").arg(generated_.size()).arg(options_.newTokens));
    emit tokenShown(static_cast<int>(generated_.size()));
}

void GenerationPanel::showStep(GeneratedStep step)
{
    const int row = table_->rowCount();
    table_->insertRow(row);
    const Qt::Alignment right = Qt::AlignRight | Qt::AlignVCenter;
    table_->setItem(row, PositionColumn, readOnlyCell(QString::number(step.token.position), right));
    QTableWidgetItem* token = readOnlyCell(step.text);
    token->setData(Qt::UserRole, step.token.id);
    token->setToolTip(tr("id %1").arg(step.token.id));
    table_->setItem(row, TokenColumn, token);
    table_->setItem(row, ProbabilityColumn, readOnlyCell(probabilityText(step.token.probability), right));
    QStringList alternatives;
    for (std::size_t k = 0; k < step.token.top.size() && k < static_cast<std::size_t>(step.alternatives.size()); ++k)
        alternatives << tr("«%1» %2").arg(step.alternatives[static_cast<int>(k)],
                                          probabilityText(step.token.top[k].probability));
    QTableWidgetItem* top = readOnlyCell(alternatives.join(QStringLiteral("  ")));
    top->setToolTip(plainAsRichText(alternatives.join(QLatin1Char('\n'))));
    table_->setItem(row, TopColumn, top);
    attention_->addToken(step.text, std::move(step.rows));
    generated_.push_back(std::move(step.token));
    pieces_.push_back(std::move(step.piece));
}

void GenerationPanel::stop()
{
    if (!mailbox_ || mailbox_->stop) return;
    mailbox_->stop = true;
    status_->setText(tr("Stopping after the token under way…"));
    updateControls();
}

void GenerationPanel::deliver(const GenerationEnd& outcome)
{
    if (!mailbox_) return;
    drain();                // the tokens queued before the end come first
    if (!mailbox_) return;  // they told the tab of a new prompt, which cleared them
    mailbox_.reset();
    status_->setText(outcome.problem.isEmpty() ? finishedText() : outcome.problem);
    updateControls();
    emit generationEnded();
}

QString GenerationPanel::finishedText() const
{
    const auto count = static_cast<qkv::Index>(generated_.size());
    QString text = count < options_.newTokens
                       ? tr("Stopped after %1 of %2 tokens").arg(count).arg(options_.newTokens)
                       : tr("Generated %1 tokens after the prompt's %2").arg(count).arg(promptLength_);
    if (!stopReason_.isEmpty() && count < options_.newTokens) text += tr(" (%1)").arg(stopReason_);
    text += options_.temperature == 0.0
                ? tr(", greedily")
                : tr(", sampled at temperature %1 with seed %2").arg(options_.temperature).arg(options_.seed);
    const QString off = model_ ? headsOffText(*model_, options_.run.ablatedHeads) : QString();
    if (!off.isEmpty()) text += tr(", with heads %1 off").arg(off);
    text += QLatin1Char('.');
    // A byte token (GPT-2's "<0xC3>") alone is half a character; a typed sentence holds characters.
    if (!generatedWholeCharacters())
        text += tr(" Some generated bytes are not whole UTF-8 characters: Keep as prompt writes � in their place.");
    return text;
}

void GenerationPanel::cancel()
{
    if (mailbox_) mailbox_->stop = true;
    mailbox_.reset();
    generation_.cancel();
}

void GenerationPanel::clearGenerated()
{
    generated_.clear();
    pieces_.clear();
    stopReason_.clear();
    promptLength_ = 0;
    model_.reset();
    promptText_.clear();
    table_->setRowCount(0);
    attention_->clear();
    status_->setText(
        tr("The model continues the target sentence one token at a time: the most likely token at "
           "temperature 0, else one sampled with the seed."));
    updateControls();
}

std::string GenerationPanel::generatedBytes() const
{
    return model_ && model_->tokenizer ? model_->tokenizer->decodePieces(pieces_) : std::string();
}

bool GenerationPanel::generatedWholeCharacters() const
{
    QStringDecoder utf8(QStringDecoder::Utf8);
    const QString text = utf8(QByteArray::fromStdString(generatedBytes()));
    return !utf8.hasError();
}

QString GenerationPanel::promptWithGenerated() const { return QString::fromStdString(promptText_ + generatedBytes()); }

void GenerationPanel::updateControls()
{
    const bool generating = isGenerating();
    const bool can = prompt_.model && notApplicable().isEmpty();
    generate_->setText(generating ? tr("Stop") : tr("Generate"));
    generate_->setEnabled(generating ? !mailbox_->stop : can);
    for (QWidget* box : {static_cast<QWidget*>(tokens_), static_cast<QWidget*>(temperature_)})
        box->setEnabled(!generating);
    seed_->setEnabled(!generating && temperature_->value() > 0.0);
    keep_->setEnabled(!generating && !generated_.empty() && model_ && model_->tokenizer);
}

}  // namespace qkv::ui
