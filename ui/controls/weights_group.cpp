#include "ui/controls/weights_group.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <climits>

#include "ui/controls/config_edit.hpp"
#include "ui/controls/field_message.hpp"
#include "ui/controls/note_label.hpp"
#include "ui/document/document.hpp"
#include "ui/document/session_text.hpp"

namespace qkv::ui {
namespace {

QVBoxLayout* withNote(QWidget* field, QLabel* note)
{
    auto* box = new QVBoxLayout;
    box->setSpacing(2);
    box->addWidget(field);
    box->addWidget(note);
    return box;
}

}  // namespace

WeightsGroup::WeightsGroup(Document* document, QWidget* parent)
    : QGroupBox(tr("Weights"), parent), document_(document), origin_(new QLabel(this)), seed_(new QSpinBox(this)),
      seedNote_(noteLabel(this)), init_(new QComboBox(this)), initNote_(noteLabel(this)),
      bias_(new QCheckBox(tr("&Biases b^Q, b^K, b^V, b^O"), this)), message_(new FieldMessage(this))
{
    auto* form = new QFormLayout(this);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    origin_->setWordWrap(true);
    origin_->setTextFormat(Qt::PlainText);  // file and tensor names
    origin_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    origin_->setAccessibleName(tr("Where the weights come from"));
    form->addRow(origin_);

    seed_->setRange(0, INT_MAX);
    seed_->setAccessibleName(tr("Seed"));
    seed_->setToolTip(tr("Same seed, same weights and embeddings, bit for bit."));
    auto* seedLabel = new QLabel(tr("S&eed"), this);
    seedLabel->setBuddy(seed_);
    form->addRow(seedLabel, withNote(seed_, seedNote_));
    init_->addItem(tr("Xavier/Glorot uniform"), static_cast<int>(qkv::WeightInit::XavierUniform));
    init_->addItem(tr("Normal N(0, 1/d_model)"), static_cast<int>(qkv::WeightInit::Normal));
    init_->setAccessibleName(tr("Initialisation"));
    auto* initLabel = new QLabel(tr("&Init"), this);
    initLabel->setBuddy(init_);
    form->addRow(initLabel, withNote(init_, initNote_));
    form->addRow(bias_);
    form->addRow(message_);

    connect(seed_, &QSpinBox::valueChanged, this, [this](int value) {
        editConfig(document_, tr("Change seed"), EditKey::Seed,
                   [&](qkv::Config& c) { c.seed = static_cast<std::uint64_t>(value); });
    });
    connect(init_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index < 0) return;
        editConfig(document_, tr("Change initialisation"), EditKey::None,
                   [&](qkv::Config& c) { c.init = static_cast<qkv::WeightInit>(init_->itemData(index).toInt()); });
    });
    connect(bias_, &QCheckBox::toggled, this, [this](bool on) {
        editConfig(document_, on ? tr("Turn biases on") : tr("Turn biases off"), EditKey::None,
                   [&](qkv::Config& c) { c.withBias = on; });
    });
}

void WeightsGroup::showSession(const qkv::Session& session)
{
    const qkv::Config& config = session.config;
    {
        const QSignalBlocker b1(seed_), b2(init_), b3(bias_);
        seed_->setValue(static_cast<int>(std::min<std::uint64_t>(config.seed, INT_MAX)));
        init_->setCurrentIndex(init_->findData(static_cast<int>(config.init)));
        bias_->setChecked(config.withBias);
    }
    origin_->setText(weightsOriginLines(session).join(QLatin1Char('\n')));
    setNote(seedNote_, qkv::ui::seedNote(session));
    setNote(initNote_, qkv::ui::initNote(session));
    // Loaded weights decide whether there are biases.
    bias_->setEnabled(!session.weights);
    bias_->setToolTip(session.weights ? tr("The stored weights decide: File > Use Generated Weights frees it.")
                                      : QString());
}

void WeightsGroup::setMessage(const QString& message) { message_->setMessage(message); }

}  // namespace qkv::ui
