#include "ui/controls/inputs_group.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QStandardItemModel>
#include <QToolButton>
#include <QVBoxLayout>

#include "ui/controls/config_edit.hpp"
#include "ui/controls/field_message.hpp"
#include "ui/controls/note_label.hpp"
#include "ui/controls/positional_choices.hpp"
#include "ui/document/document.hpp"
#include "ui/document/session_text.hpp"
#include "ui/figures/shown_text.hpp"

namespace qkv::ui {
namespace {

// A field with its validation message (and an optional note) right under it.
QVBoxLayout* withMessage(QLayout* field, QWidget* note, FieldMessage* message)
{
    auto* box = new QVBoxLayout;
    box->setSpacing(2);
    box->addLayout(field);
    if (note) box->addWidget(note);
    box->addWidget(message);
    return box;
}

QHBoxLayout* row(std::initializer_list<QWidget*> widgets)
{
    auto* layout = new QHBoxLayout;
    layout->setContentsMargins(0, 0, 0, 0);
    bool first = true;
    for (QWidget* w : widgets) {
        layout->addWidget(w, first ? 1 : 0);
        first = false;
    }
    return layout;
}

QLabel* buddyLabel(const QString& text, QWidget* buddy, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    label->setBuddy(buddy);
    return label;
}

}  // namespace

InputsGroup::InputsGroup(Document* document, QWidget* parent)
    : QGroupBox(tr("Positions and embeddings"), parent), document_(document), form_(new QFormLayout(this)),
      positional_(new QComboBox(this)), ropeBase_(new QDoubleSpinBox(this)), positionalNote_(noteLabel(this)),
      positionalMessage_(new FieldMessage(this)), embeddings_(new QComboBox(this)),
      tokenScale_(new QDoubleSpinBox(this)), paperScale_(new QToolButton(this)), tokenScaleNote_(noteLabel(this)),
      embeddingsMessage_(new FieldMessage(this))
{
    form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    addPositionalChoices(positional_);
    positional_->setAccessibleName(tr("Positional encoding"));
    positional_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    positional_->setMinimumContentsLength(12);
    form_->addRow(buddyLabel(tr("P&ositions"), positional_, this),
                  withMessage(row({positional_}), positionalNote_, positionalMessage_));

    ropeBase_->setRange(1.0, 1e9);
    ropeBase_->setDecimals(0);
    ropeBase_->setSingleStep(1000.0);
    ropeBase_->setAccessibleName(tr("Rotary base"));
    ropeBase_->setToolTip(tr("theta_j = base^(-2j / d_k): 10000 in RoFormer and LLaMA 2, 500000 in LLaMA 3."));
    form_->addRow(buddyLabel(tr("Rotary &base"), ropeBase_, this), ropeBase_);

    embeddings_->addItem(tr("By word"), static_cast<int>(qkv::EmbeddingKind::Word));
    embeddings_->addItem(tr("By meaning (translations share)"), static_cast<int>(qkv::EmbeddingKind::Meaning));
    embeddings_->addItem(tr("The model's own"), static_cast<int>(qkv::EmbeddingKind::Model));
    embeddings_->setAccessibleName(tr("Token embeddings"));
    embeddings_->setToolTip(
        tr("By word: a random vector per lower-cased word, from the seed.\n"
           "By meaning: a vector per concept of the built-in lexicon, so \"cat\" and \"chat\" "
           "share one (what a same-meaning head needs).\n"
           "The model's own: X exactly as the checkpoint's model computes it for the layer, from its "
           "subword tokens: the embeddings for the first layer, what the layers below computed for "
           "any other (File > Open Checkpoint, with the tokenizer files beside the checkpoint)."));
    embeddings_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    embeddings_->setMinimumContentsLength(12);
    form_->addRow(buddyLabel(tr("E&mbeddings"), embeddings_, this), embeddings_);

    tokenScale_->setRange(0.0, 1000.0);
    tokenScale_->setDecimals(3);
    tokenScale_->setSingleStep(0.05);
    tokenScale_->setAccessibleName(tr("Token-embedding scale"));
    tokenScale_->setToolTip(tr("Multiplies each token's embedding before PE(pos) is added. The paper: 1."));
    paperScale_->setText(tr("Paper: 1"));
    paperScale_->setToolTip(tr("Back to the paper's setting: token embeddings unscaled"));
    paperScale_->setAccessibleName(tr("Token-embedding scale: the paper's 1"));
    form_->addRow(buddyLabel(tr("&Token scale"), tokenScale_, this),
                  withMessage(row({tokenScale_, paperScale_}), tokenScaleNote_, embeddingsMessage_));

    connect(positional_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index < 0) return;
        const auto positional = static_cast<qkv::PositionalEncoding>(positional_->itemData(index).toInt());
        editConfig(document_, tr("Positions: %1").arg(positional_->itemText(index)), EditKey::None,
                   [&](qkv::Config& c) { c.positional = positional; });
    });
    connect(ropeBase_, &QDoubleSpinBox::valueChanged, this, [this](double base) {
        editConfig(document_, tr("Rotary base"), EditKey::RopeBase, [&](qkv::Config& c) { c.conventions.ropeBase = base; });
    });
    connect(embeddings_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index < 0) return;
        const auto kind = static_cast<qkv::EmbeddingKind>(embeddings_->itemData(index).toInt());
        editConfig(document_, tr("Embeddings: %1").arg(embeddings_->itemText(index)), EditKey::None,
                   [&](qkv::Config& c) { c.embeddings = kind; });
    });
    connect(tokenScale_, &QDoubleSpinBox::valueChanged, this, [this](double scale) {
        editConfig(document_, tr("Token-embedding scale"), EditKey::TokenScale,
                   [&](qkv::Config& c) { c.tokenEmbeddingScale = static_cast<float>(scale); });
    });
    connect(paperScale_, &QToolButton::clicked, this, [this] {
        editConfig(document_, tr("Token-embedding scale: the paper's 1"), EditKey::None,
                   [](qkv::Config& c) { c.tokenEmbeddingScale = 1.0f; });
    });
}

// A loaded long-context model's stretched frequencies (config.json's rope_scaling) are its own,
// with no control: the base's field says they are there, its tooltip how.
void InputsGroup::showRopeScaling(const qkv::RopeScaling& s)
{
    const QString plain = tr("theta_j = base^(-2j / d_k): 10000 in RoFormer and LLaMA 2, 500000 in LLaMA 3.");
    if (s.kind == qkv::RopeScalingKind::None) {
        ropeBase_->setSuffix({});
        ropeBase_->setToolTip(plain);
        return;
    }
    const QString kind = QString::fromUtf8(qkv::nameOf(qkv::kRopeScalingNames, s.kind));
    ropeBase_->setSuffix(tr(" · %1 ×%2").arg(kind).arg(s.factor));
    QString how = s.kind == qkv::RopeScalingKind::Linear
                      ? tr("every theta_j divided by %1").arg(s.factor)
                      : tr("pairs with a wavelength above %1 positions divided by %2, below %3 kept, a smooth "
                           "blend between")
                            .arg(s.originalMaxPositions / s.lowFreqFactor)
                            .arg(s.factor)
                            .arg(s.originalMaxPositions / s.highFreqFactor);
    ropeBase_->setToolTip(tr("%1\nThe model's rope_scaling (%2): %3.").arg(plain, kind, how));
}

void InputsGroup::showSession(const qkv::Session& session)
{
    const qkv::Config& config = session.config;
    showModelInput(session.modelInput.get(), config.embeddings == qkv::EmbeddingKind::Model);
    {
        const QSignalBlocker b1(positional_), b2(ropeBase_), b3(embeddings_), b4(tokenScale_);
        positional_->setCurrentIndex(positional_->findData(static_cast<int>(config.positional)));
        ropeBase_->setValue(config.conventions.ropeBase);
        showRopeScaling(config.conventions.ropeScaling);
        embeddings_->setCurrentIndex(embeddings_->findData(static_cast<int>(config.embeddings)));
        // Only while the value differs: retyping "0.1" must not be reformatted under the cursor.
        if (static_cast<float>(tokenScale_->value()) != config.tokenEmbeddingScale)
            tokenScale_->setValue(config.tokenEmbeddingScale);
    }
    form_->setRowVisible(ropeBase_, qkv::isRotary(config.positional));
    paperScale_->setVisible(config.tokenEmbeddingScale != 1.0f);
    // The model's own X is not scaled (the token scale does not apply) and holds its learned
    // positions (nothing is added; rotary positions would still turn q and k).
    const bool model = config.embeddings == qkv::EmbeddingKind::Model;
    tokenScale_->setEnabled(!model);
    setNote(positionalNote_, model && config.positional == qkv::PositionalEncoding::Sinusoidal
                                 ? tr("Not added: the model's own X already holds its learned positions.")
                                 : QString());
    setNote(tokenScaleNote_, qkv::ui::tokenScaleNote(config));
}

void InputsGroup::showModelInput(const qkv::ModelInput* input, bool chosen)
{
    const int index = embeddings_->findData(static_cast<int>(qkv::EmbeddingKind::Model));
    auto* model = qobject_cast<QStandardItemModel*>(embeddings_->model());
    if (index < 0 || !model) return;
    QStandardItem* item = model->item(index);
    // Offered while there is one, and shown (with the message saying why it fails) when chosen.
    item->setEnabled(input != nullptr || chosen);
    item->setToolTip(input ? plainAsRichText(tr("%1.\nFrom %2.")
                                                 .arg(QString::fromStdString(input->description()),
                                                      QString::fromStdString(input->origin())))
                           : tr("Open a checkpoint's layer with its tokenizer files (File > Open Checkpoint) "
                                "to use the model's own input."));
}

void InputsGroup::setMessages(const QString& positional, const QString& embeddings)
{
    positionalMessage_->setMessage(positional);
    embeddingsMessage_->setMessage(embeddings);
}

}  // namespace qkv::ui
