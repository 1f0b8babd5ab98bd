#include "ui/controls/controls_panel.hpp"

#include <QEvent>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <map>

#include "core/common/limits.hpp"
#include "ui/controls/config_edit.hpp"
#include "ui/controls/field_message.hpp"
#include "ui/controls/inputs_group.hpp"
#include "ui/controls/scale_slider.hpp"
#include "ui/controls/sentence_field.hpp"
#include "ui/controls/weights_group.hpp"
#include "ui/controls/wheel_guard.hpp"
#include "ui/document/document.hpp"

namespace qkv::ui {
namespace {

// Far beyond the limits on purpose: a value typed past the limit reaches validation, which says
// the limit at the field, instead of the spin box silently dropping digits (5000 -> 500).
constexpr int kTypingRange = 99'999'999;

QString toQString(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

const qkv::AttentionMode kModes[] = {qkv::AttentionMode::EncoderSelf, qkv::AttentionMode::DecoderCausal,
                                     qkv::AttentionMode::Cross};

// A form label whose mnemonic focuses `buddy` (QFormLayout only does this for widget fields).
QLabel* buddyLabel(const QString& text, QWidget* buddy, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    label->setBuddy(buddy);
    return label;
}

QVBoxLayout* fieldWithMessage(QWidget* field, FieldMessage* message)
{
    auto* box = new QVBoxLayout;
    box->setSpacing(2);
    box->addWidget(field);
    box->addWidget(message);
    return box;
}

QString modeTitle(qkv::AttentionMode mode)
{
    switch (mode) {
    case qkv::AttentionMode::EncoderSelf: return ControlsPanel::tr("Encoder self-attention");
    case qkv::AttentionMode::DecoderCausal: return ControlsPanel::tr("Decoder masked self-attention");
    case qkv::AttentionMode::Cross: return ControlsPanel::tr("Cross-attention");
    }
    return {};
}

}  // namespace

ControlsPanel::ControlsPanel(Document* document, QWidget* parent)
    : QWidget(parent), document_(document), source_(new SentenceField(tr("&Source sentence"), this)),
      target_(new SentenceField(tr("&Target sentence"), this)), mode_(new QComboBox(this)),
      modeExplanation_(new QLabel(this)), modeMessage_(new FieldMessage(this)), window_(new QSpinBox(this)), dModel_(new QSpinBox(this)),
      dModelMessage_(new FieldMessage(this)), heads_(new QSpinBox(this)), dk_(new QSpinBox(this)),
      headsMessage_(new FieldMessage(this)), keyValueHeads_(new QComboBox(this)),
      keyValueHeadsMessage_(new FieldMessage(this)), inputs_(new InputsGroup(document, this)),
      weights_(new WeightsGroup(document, this)), scaleQuery_(new ScaleSlider(QStringLiteral("W^Q"), this)),
      scaleKey_(new ScaleSlider(QStringLiteral("W^K"), this)), scaleValue_(new ScaleSlider(QStringLiteral("W^V"), this)),
      scaleOutput_(new ScaleSlider(QStringLiteral("W^O"), this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    auto* sentences = new QGroupBox(tr("Sentences"), this);
    auto* sentencesLayout = new QVBoxLayout(sentences);
    sentencesLayout->addWidget(source_);
    sentencesLayout->addWidget(target_);
    layout->addWidget(sentences);
    layout->addWidget(makeAttentionGroup());
    layout->addWidget(inputs_);
    layout->addWidget(weights_);
    layout->addWidget(makeScalesGroup());
    layout->addStretch(1);
    guardWheel(this);

    // User edits -> document (undoable).
    connect(source_, &SentenceField::textEdited, this, [this](const QString& text) {
        editConfig(document_, tr("Edit source sentence"), EditKey::SourceText,
                   [&](qkv::Config& c) { c.sourceText = text.toStdString(); });
    });
    connect(target_, &SentenceField::textEdited, this, [this](const QString& text) {
        editConfig(document_, tr("Edit target sentence"), EditKey::TargetText,
                   [&](qkv::Config& c) { c.targetText = text.toStdString(); });
    });

    // Document -> controls (start-up, undo, redo, a new document).
    connect(document_, &Document::contentChanged, this, &ControlsPanel::showSession);
    connect(document_, &Document::validationChanged, this, &ControlsPanel::showIssues);
    showSession();
    showIssues(document_->issues());
}

QWidget* ControlsPanel::makeAttentionGroup()
{
    auto* attention = new QGroupBox(tr("Attention"), this);
    auto* form = new QFormLayout(attention);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    for (qkv::AttentionMode mode : kModes) mode_->addItem(modeTitle(mode), static_cast<int>(mode));
    mode_->setAccessibleName(tr("Attention mode"));
    modeExplanation_->setWordWrap(true);
    modeExplanation_->installEventFilter(this);
    modeExplanation_->setForegroundRole(QPalette::PlaceholderText);
    auto* modeBox = new QVBoxLayout;
    modeBox->setSpacing(2);
    modeBox->addWidget(mode_);
    modeBox->addWidget(modeExplanation_);
    modeBox->addWidget(makeWindowRow());
    modeBox->addWidget(modeMessage_);
    form->addRow(buddyLabel(tr("&Mode"), mode_, this), modeBox);

    dModel_->setRange(0, kTypingRange);
    dModel_->setAccessibleName(QStringLiteral("d_model"));
    dModel_->setToolTip(tr("Width of every token vector and of W^Q, W^K, W^V, W^O (d_model x d_model); 1 to %1.")
                            .arg(qkv::limits::maxDModel));
    form->addRow(buddyLabel(tr("d_&model"), dModel_, this), fieldWithMessage(dModel_, dModelMessage_));

    heads_->setRange(0, kTypingRange);
    heads_->setAccessibleName(tr("Number of heads h"));
    heads_->setToolTip(tr("Number of heads h (1 to %1). With d_k on auto it must divide d_model and each head "
                          "gets d_k = d_model / h columns.")
                           .arg(qkv::limits::maxHeads));
    // d_k beside h: auto is the paper's d_model / h; a number gives heads their own width, as
    // Qwen3 (d_model 1024, h 16, d_k 128) and Gemma do. W^Q becomes d_model x h d_k.
    dk_->setRange(0, static_cast<int>(qkv::limits::maxHeadDim));
    dk_->setAccessibleName(tr("Head width d_k"));
    dk_->setToolTip(tr("d_k, the width of each head's queries, keys and values. auto: d_model / h (the paper). "
                       "Any other width makes W^Q d_model x h·d_k; W_i = W_i^Q (W_i^K)^T stays d_model x d_model, "
                       "of rank at most d_k."));
    auto* dkLabel = new QLabel(tr("d_&k"), this);
    dkLabel->setBuddy(dk_);
    auto* headsRow = new QHBoxLayout;
    headsRow->addWidget(heads_, 1);
    headsRow->addWidget(dkLabel);
    headsRow->addWidget(dk_, 1);
    auto* headsBox = new QVBoxLayout;
    headsBox->setSpacing(2);
    headsBox->addLayout(headsRow);
    headsBox->addWidget(headsMessage_);
    form->addRow(buddyLabel(tr("&h (heads)"), heads_, this), headsBox);

    keyValueHeads_->setAccessibleName(tr("Key/value heads g"));
    keyValueHeads_->setToolTip(tr("g key/value heads shared by the h query heads: a divisor of h. g = h is the "
                                  "paper's multi-head attention, g = 1 multi-query, between grouped-query. "
                                  "W^K and W^V become d_model x g d_k."));
    form->addRow(buddyLabel(tr("&g (key/value)"), keyValueHeads_, this), fieldWithMessage(keyValueHeads_, keyValueHeadsMessage_));

    connect(mode_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index < 0) return;
        editConfig(document_, tr("Change mode"), EditKey::None,
                   [&](qkv::Config& c) { c.mode = static_cast<qkv::AttentionMode>(mode_->itemData(index).toInt()); });
    });
    connect(dModel_, &QSpinBox::valueChanged, this, [this](int value) {
        editConfig(document_, tr("Change d_model"), EditKey::DModel, [&](qkv::Config& c) { c.d_model = value; });
    });
    connect(heads_, &QSpinBox::valueChanged, this, [this](int value) {
        editConfig(document_, tr("Change h"), EditKey::Heads, [&](qkv::Config& c) { c.headCount = value; });
    });
    connect(dk_, &QSpinBox::valueChanged, this, [this](int value) {
        editConfig(document_, value == 0 ? tr("d_k = d_model / h") : tr("Change d_k"), EditKey::HeadDim,
                   [&](qkv::Config& c) { c.headDim = value; });
    });
    connect(keyValueHeads_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index < 0) return;
        const qkv::Index g = keyValueHeads_->itemData(index).toLongLong();
        editConfig(document_, g == 0 ? tr("Key/value heads g = h") : tr("Key/value heads g = %1").arg(g), EditKey::None,
                   [&](qkv::Config& c) { c.keyValueHeadCount = g; });
    });
    return attention;
}

// Causal mode's sliding window (Mistral): each query sees only the W latest keys; the heatmaps
// hatch the rest as masked.
QWidget* ControlsPanel::makeWindowRow()
{
    windowRow_ = new QWidget(this);
    auto* row = new QHBoxLayout(windowRow_);
    row->setContentsMargins(0, 0, 0, 0);
    window_->setRange(0, static_cast<int>(qkv::limits::maxTokens));
    window_->setSpecialValueText(tr("off"));  // short: the field sets the panel's narrowest width
    window_->setAccessibleName(tr("Sliding window"));
    window_->setToolTip(tr("Sliding-window attention (Mistral): query t sees only keys t - W + 1 .. t, the W latest; "
                           "the others are masked. Off: every earlier key (the paper's decoder)."));
    row->addWidget(buddyLabel(tr("Sliding &window"), window_, this));
    row->addWidget(window_, 1);
    connect(window_, &QSpinBox::valueChanged, this, [this](int value) {
        editConfig(document_, value == 0 ? tr("No sliding window") : tr("Sliding window of %1 keys").arg(value),
                   EditKey::SlidingWindow, [&](qkv::Config& c) { c.conventions.slidingWindow = value; });
    });
    return windowRow_;
}

QWidget* ControlsPanel::makeScalesGroup()
{
    auto* scales = new QGroupBox(tr("Scales (sharpen or flatten)"), this);
    auto* scalesLayout = new QVBoxLayout(scales);
    struct Scale {
        ScaleSlider* slider;
        EditKey key;
        float qkv::ProjectionScales::*member;
    };
    const Scale all[] = {{scaleQuery_, EditKey::ScaleQuery, &qkv::ProjectionScales::query},
                         {scaleKey_, EditKey::ScaleKey, &qkv::ProjectionScales::key},
                         {scaleValue_, EditKey::ScaleValue, &qkv::ProjectionScales::value},
                         {scaleOutput_, EditKey::ScaleOutput, &qkv::ProjectionScales::output}};
    for (const Scale& scale : all) {
        scalesLayout->addWidget(scale.slider);
        connect(scale.slider, &ScaleSlider::valueChanged, this, [this, scale](float v) {
            editConfig(document_, tr("Scale %1").arg(scale.slider->name()), scale.key,
                       [&](qkv::Config& c) { c.scales.*scale.member = v; });
        });
    }
    return scales;
}

QSpinBox* ControlsPanel::seedBox() const { return weights_->seedBox(); }

void ControlsPanel::showSession()
{
    const qkv::Session& session = document_->session();
    const qkv::Config& config = session.config;
    const bool meaning = config.embeddings == qkv::EmbeddingKind::Meaning;
    source_->setMarksOutsideLexicon(meaning);
    target_->setMarksOutsideLexicon(meaning);
    source_->setText(QString::fromStdString(config.sourceText));
    target_->setText(QString::fromStdString(config.targetText));
    source_->setUsed(config.needsSource(), tr("not used in this mode"));
    target_->setUsed(config.needsTarget(), tr("not used in this mode"));
    {
        const QSignalBlocker b1(mode_), b2(dModel_), b3(heads_), b4(dk_), b5(window_);
        mode_->setCurrentIndex(mode_->findData(static_cast<int>(config.mode)));
        window_->setValue(static_cast<int>(std::clamp<qkv::Index>(config.conventions.slidingWindow, 0, qkv::limits::maxTokens)));
        // Shown where it applies, or where a session set one anyway (its message says why not).
        windowRow_->setVisible(config.mode == qkv::AttentionMode::DecoderCausal || config.conventions.slidingWindow != 0);
        dModel_->setValue(static_cast<int>(std::clamp<qkv::Index>(config.d_model, 0, kTypingRange)));
        heads_->setValue(static_cast<int>(std::clamp<qkv::Index>(config.headCount, 0, kTypingRange)));
        const bool divides = config.headCount > 0 && config.d_model % config.headCount == 0;
        dk_->setSpecialValueText(divides ? tr("auto: %1").arg(config.d_model / config.headCount) : tr("auto"));
        dk_->setValue(static_cast<int>(std::clamp<qkv::Index>(config.headDim, 0, qkv::limits::maxHeadDim)));
    }
    showKeyValueHeads(config);
    modeExplanation_->setText(toQString(qkv::modeExplanation(config.mode)));
    fitModeExplanation();
    scaleQuery_->setValue(config.scales.query);
    scaleKey_->setValue(config.scales.key);
    scaleValue_->setValue(config.scales.value);
    scaleOutput_->setValue(config.scales.output);
    inputs_->showSession(session);
    weights_->showSession(session);
}

void ControlsPanel::showKeyValueHeads(const qkv::Config& config)
{
    // "follows h" (0), then every other divisor of h; an explicit g that is h or does not divide
    // h is listed too, so the box shows what the config says (validation explains the rest).
    const QSignalBlocker blocker(keyValueHeads_);
    keyValueHeads_->clear();
    const qkv::Index h = std::clamp<qkv::Index>(config.headCount, 0, qkv::limits::maxHeads);
    keyValueHeads_->addItem(h > 0 ? tr("%1: follows h (multi-head)").arg(h) : tr("follows h"), QVariant::fromValue<qlonglong>(0));
    std::map<qkv::Index, QString> choices;
    for (qkv::Index g = 1; g < h; ++g)
        if (h % g == 0) choices[g] = g == 1 ? tr("1 (multi-query)") : tr("%1 (grouped-query)").arg(g);
    if (const qkv::Index g = config.keyValueHeadCount; g > 0 && !choices.count(g))
        choices[g] = g == h ? tr("%1 (multi-head)").arg(g) : QString::number(g);
    for (const auto& [g, text] : choices) keyValueHeads_->addItem(text, QVariant::fromValue<qlonglong>(g));
    keyValueHeads_->setCurrentIndex(keyValueHeads_->findData(QVariant::fromValue<qlonglong>(config.keyValueHeadCount)));
}

void ControlsPanel::showIssues(const std::vector<qkv::ValidationIssue>& issues)
{
    std::map<qkv::ConfigField, QStringList> messages;
    for (const qkv::ValidationIssue& issue : issues) messages[issue.field] << QString::fromStdString(issue.message);
    const auto text = [&](std::initializer_list<qkv::ConfigField> fields) {
        QStringList all;
        for (const qkv::ConfigField field : fields) all << messages[field];
        return all.join(QLatin1Char('\n'));
    };
    source_->setMessage(text({qkv::ConfigField::Source}));
    target_->setMessage(text({qkv::ConfigField::Target}));
    // Validation has just cut the sentences; the chips show that cut.
    source_->showCut(document_->sourceSentence());
    target_->showCut(document_->targetSentence());
    modeMessage_->setMessage(text({qkv::ConfigField::Mode}));
    dModelMessage_->setMessage(text({qkv::ConfigField::DModel}));
    headsMessage_->setMessage(text({qkv::ConfigField::Heads, qkv::ConfigField::HeadDim}));
    keyValueHeadsMessage_->setMessage(text({qkv::ConfigField::KeyValueHeads}));
    inputs_->setMessages(text({qkv::ConfigField::Positional}), text({qkv::ConfigField::Embeddings}));
    weights_->setMessage(text({qkv::ConfigField::Weights, qkv::ConfigField::Presets, qkv::ConfigField::Ablation}));
}

bool ControlsPanel::eventFilter(QObject* watched, QEvent* event)
{
    // The explanation is asked for the lines its text needs at the width it has: nested in the
    // form's field it was given the lines of a wider width and cut at both ends (1000 x 700,
    // while the training preview filled the panel). Widths before the first real layout are
    // ignored.
    if (watched == modeExplanation_ && event->type() == QEvent::Resize) fitModeExplanation();
    return QWidget::eventFilter(watched, event);
}

// Also when the text changes at the same width: a shorter text under the longer one's height
// stood in a band of blank lines (the cross-attention explanation, then the causal one).
// QLabel::heightForWidth never answers below the current minimum height, so it is asked with
// none.
void ControlsPanel::fitModeExplanation()
{
    if (modeExplanation_->width() < 120) return;
    const int previous = modeExplanation_->minimumHeight();
    modeExplanation_->setMinimumHeight(0);
    const int needed = modeExplanation_->heightForWidth(modeExplanation_->width());
    modeExplanation_->setMinimumHeight(needed > 0 ? needed : previous);
}

QSize ControlsPanel::sizeHint() const { return {300, QWidget::sizeHint().height()}; }

}  // namespace qkv::ui
