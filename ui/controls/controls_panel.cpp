#include "ui/controls/controls_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <climits>

#include "core/config/limits.hpp"
#include "ui/controls/field_message.hpp"
#include "ui/controls/scale_slider.hpp"
#include "ui/controls/sentence_field.hpp"
#include "ui/document/document.hpp"

namespace qkv::ui {
namespace {

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
    : QWidget(parent), document_(document),
      source_(new SentenceField(tr("&Source sentence"), this)),
      target_(new SentenceField(tr("&Target sentence"), this)), mode_(new QComboBox(this)),
      modeExplanation_(new QLabel(this)), modeMessage_(new FieldMessage(this)), dModel_(new QSpinBox(this)),
      dModelMessage_(new FieldMessage(this)), heads_(new QSpinBox(this)), dk_(new QLabel(this)),
      headsMessage_(new FieldMessage(this)), seed_(new QSpinBox(this)), init_(new QComboBox(this)),
      positional_(new QCheckBox(tr("&Positional encoding (sinusoidal)"), this)),
      bias_(new QCheckBox(tr("&Biases b^Q, b^K, b^V, b^O"), this)),
      scaleQuery_(new ScaleSlider(QStringLiteral("W^Q"), this)),
      scaleKey_(new ScaleSlider(QStringLiteral("W^K"), this)),
      scaleValue_(new ScaleSlider(QStringLiteral("W^V"), this)),
      scaleOutput_(new ScaleSlider(QStringLiteral("W^O"), this)), otherMessage_(new FieldMessage(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);

    auto* sentences = new QGroupBox(tr("Sentences"), this);
    auto* sentencesLayout = new QVBoxLayout(sentences);
    sentencesLayout->addWidget(source_);
    sentencesLayout->addWidget(target_);
    layout->addWidget(sentences);

    auto* attention = new QGroupBox(tr("Attention"), this);
    auto* form = new QFormLayout(attention);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    for (qkv::AttentionMode mode : kModes) mode_->addItem(modeTitle(mode), static_cast<int>(mode));
    mode_->setAccessibleName(tr("Attention mode"));
    modeExplanation_->setWordWrap(true);
    modeExplanation_->setForegroundRole(QPalette::PlaceholderText);
    auto* modeBox = new QVBoxLayout;
    modeBox->setSpacing(2);
    modeBox->addWidget(mode_);
    modeBox->addWidget(modeExplanation_);
    modeBox->addWidget(modeMessage_);
    form->addRow(buddyLabel(tr("&Mode"), mode_, this), modeBox);

    dModel_->setRange(1, static_cast<int>(qkv::limits::maxDModel));
    dModel_->setAccessibleName(QStringLiteral("d_model"));
    dModel_->setToolTip(tr("Width of every token vector and of W^Q, W^K, W^V, W^O (d_model x d_model)."));
    auto* dModelBox = new QVBoxLayout;
    dModelBox->setSpacing(2);
    dModelBox->addWidget(dModel_);
    dModelBox->addWidget(dModelMessage_);
    form->addRow(buddyLabel(tr("d_&model"), dModel_, this), dModelBox);

    heads_->setRange(1, static_cast<int>(qkv::limits::maxHeads));
    heads_->setAccessibleName(tr("Number of heads h"));
    heads_->setToolTip(tr("Number of heads h. It must divide d_model; each head gets d_k = d_model / h columns."));
    auto* headsRow = new QHBoxLayout;
    headsRow->addWidget(heads_, 1);
    headsRow->addWidget(dk_);
    auto* headsBox = new QVBoxLayout;
    headsBox->setSpacing(2);
    headsBox->addLayout(headsRow);
    headsBox->addWidget(headsMessage_);
    form->addRow(buddyLabel(tr("&h (heads)"), heads_, this), headsBox);
    layout->addWidget(attention);

    auto* weights = new QGroupBox(tr("Weights and inputs"), this);
    auto* weightsForm = new QFormLayout(weights);
    weightsForm->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    seed_->setRange(0, INT_MAX);
    seed_->setAccessibleName(tr("Seed"));
    seed_->setToolTip(tr("Same seed, same weights and embeddings, bit for bit."));
    weightsForm->addRow(tr("S&eed"), seed_);
    init_->addItem(tr("Xavier/Glorot uniform"), static_cast<int>(qkv::WeightInit::XavierUniform));
    init_->addItem(tr("Normal N(0, 1/d_model)"), static_cast<int>(qkv::WeightInit::Normal));
    init_->setAccessibleName(tr("Initialisation"));
    weightsForm->addRow(tr("&Init"), init_);
    weightsForm->addRow(positional_);
    weightsForm->addRow(bias_);
    weightsForm->addRow(otherMessage_);
    layout->addWidget(weights);

    auto* scales = new QGroupBox(tr("Scales (sharpen or flatten)"), this);
    auto* scalesLayout = new QVBoxLayout(scales);
    for (ScaleSlider* slider : {scaleQuery_, scaleKey_, scaleValue_, scaleOutput_}) scalesLayout->addWidget(slider);
    layout->addWidget(scales);
    layout->addStretch(1);

    // User edits -> document (undoable).
    connect(source_, &SentenceField::textEdited, this, [this](const QString& text) {
        editConfig(tr("Edit source sentence"), static_cast<int>(EditKey::SourceText),
                   [&](qkv::Config& c) { c.sourceText = text.toStdString(); });
    });
    connect(target_, &SentenceField::textEdited, this, [this](const QString& text) {
        editConfig(tr("Edit target sentence"), static_cast<int>(EditKey::TargetText),
                   [&](qkv::Config& c) { c.targetText = text.toStdString(); });
    });
    connect(mode_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index < 0) return;
        editConfig(tr("Change mode"), -1, [&](qkv::Config& c) {
            c.mode = static_cast<qkv::AttentionMode>(mode_->itemData(index).toInt());
        });
    });
    connect(dModel_, &QSpinBox::valueChanged, this, [this](int value) {
        editConfig(tr("Change d_model"), static_cast<int>(EditKey::DModel), [&](qkv::Config& c) { c.d_model = value; });
    });
    connect(heads_, &QSpinBox::valueChanged, this, [this](int value) {
        editConfig(tr("Change h"), static_cast<int>(EditKey::Heads), [&](qkv::Config& c) { c.headCount = value; });
    });
    connect(seed_, &QSpinBox::valueChanged, this, [this](int value) {
        editConfig(tr("Change seed"), static_cast<int>(EditKey::Seed),
                   [&](qkv::Config& c) { c.seed = static_cast<std::uint64_t>(value); });
    });
    connect(init_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index < 0) return;
        editConfig(tr("Change initialisation"), -1, [&](qkv::Config& c) {
            c.init = static_cast<qkv::WeightInit>(init_->itemData(index).toInt());
        });
    });
    connect(positional_, &QCheckBox::toggled, this, [this](bool on) {
        editConfig(on ? tr("Turn positional encoding on") : tr("Turn positional encoding off"), -1,
                   [&](qkv::Config& c) { c.positional = on ? qkv::PositionalEncoding::Sinusoidal : qkv::PositionalEncoding::None; });
    });
    connect(bias_, &QCheckBox::toggled, this, [this](bool on) {
        editConfig(on ? tr("Turn biases on") : tr("Turn biases off"), -1, [&](qkv::Config& c) { c.withBias = on; });
    });
    connect(scaleQuery_, &ScaleSlider::valueChanged, this, [this](float v) {
        editConfig(tr("Scale W^Q"), static_cast<int>(EditKey::ScaleQuery), [&](qkv::Config& c) { c.scales.query = v; });
    });
    connect(scaleKey_, &ScaleSlider::valueChanged, this, [this](float v) {
        editConfig(tr("Scale W^K"), static_cast<int>(EditKey::ScaleKey), [&](qkv::Config& c) { c.scales.key = v; });
    });
    connect(scaleValue_, &ScaleSlider::valueChanged, this, [this](float v) {
        editConfig(tr("Scale W^V"), static_cast<int>(EditKey::ScaleValue), [&](qkv::Config& c) { c.scales.value = v; });
    });
    connect(scaleOutput_, &ScaleSlider::valueChanged, this, [this](float v) {
        editConfig(tr("Scale W^O"), static_cast<int>(EditKey::ScaleOutput), [&](qkv::Config& c) { c.scales.output = v; });
    });

    // Document -> controls (start-up, undo, redo).
    connect(document_, &Document::configChanged, this, &ControlsPanel::showConfig);
    connect(document_, &Document::validationChanged, this, &ControlsPanel::showIssues);
    showConfig(document_->config());
    showIssues(document_->issues());
}

template <class Change>
void ControlsPanel::editConfig(const QString& description, int key, Change change)
{
    qkv::Config config = document_->config();
    change(config);
    document_->edit(config, description, static_cast<EditKey>(key));
}

void ControlsPanel::showConfig(const qkv::Config& config)
{
    source_->setText(QString::fromStdString(config.sourceText));
    target_->setText(QString::fromStdString(config.targetText));
    const bool sourceUsed = config.mode != qkv::AttentionMode::DecoderCausal;
    const bool targetUsed = config.mode != qkv::AttentionMode::EncoderSelf;
    source_->setUsed(sourceUsed, tr("not used in this mode"));
    target_->setUsed(targetUsed, tr("not used in this mode"));
    {
        const QSignalBlocker b1(mode_), b2(dModel_), b3(heads_), b4(seed_), b5(init_), b6(positional_), b7(bias_);
        mode_->setCurrentIndex(mode_->findData(static_cast<int>(config.mode)));
        dModel_->setValue(static_cast<int>(config.d_model));
        heads_->setValue(static_cast<int>(config.headCount));
        seed_->setValue(static_cast<int>(std::min<std::uint64_t>(config.seed, INT_MAX)));
        init_->setCurrentIndex(init_->findData(static_cast<int>(config.init)));
        positional_->setChecked(config.positional == qkv::PositionalEncoding::Sinusoidal);
        bias_->setChecked(config.withBias);
    }
    modeExplanation_->setText(toQString(qkv::modeExplanation(config.mode)));
    scaleQuery_->setValue(config.scales.query);
    scaleKey_->setValue(config.scales.key);
    scaleValue_->setValue(config.scales.value);
    scaleOutput_->setValue(config.scales.output);
    const bool divides = config.headCount > 0 && config.d_model % config.headCount == 0;
    dk_->setText(divides ? tr("d_k = %1").arg(config.d_k()) : tr("d_k = —"));
    dk_->setToolTip(tr("d_k = d_model / h, the width of each head's queries and keys"));
}

void ControlsPanel::showIssues(const std::vector<qkv::ValidationIssue>& issues)
{
    QStringList source, target, mode, dModel, heads, other;
    for (const qkv::ValidationIssue& issue : issues) {
        const QString message = QString::fromStdString(issue.message);
        switch (issue.field) {
        case qkv::ConfigField::Source: source << message; break;
        case qkv::ConfigField::Target: target << message; break;
        case qkv::ConfigField::Mode: mode << message; break;
        case qkv::ConfigField::DModel: dModel << message; break;
        case qkv::ConfigField::Heads: heads << message; break;
        default: other << message; break;
        }
    }
    const QString newline = QStringLiteral("\n");
    source_->setMessage(source.join(newline));
    target_->setMessage(target.join(newline));
    modeMessage_->setMessage(mode.join(newline));
    dModelMessage_->setMessage(dModel.join(newline));
    headsMessage_->setMessage(heads.join(newline));
    otherMessage_->setMessage(other.join(newline));
}

QSize ControlsPanel::sizeHint() const { return {300, QWidget::sizeHint().height()}; }

}  // namespace qkv::ui
