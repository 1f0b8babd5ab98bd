#include "ui/checkpoint/checkpoint_layer_dialog.hpp"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/checkpoint/model_input_loading.hpp"
#include "core/common/limits.hpp"
#include "core/families/attention_rules.hpp"
#include "core/families/model_names.hpp"
#include "ui/controls/positional_choices.hpp"

namespace qkv::ui {

namespace {

QString fromStd(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

constexpr int kWindowColumn = 7;


}  // namespace

CheckpointLayerDialog::CheckpointLayerDialog(qkv::Checkpoint checkpoint, QWidget* parent)
    : QDialog(parent), checkpoint_(std::move(checkpoint))
{
    setWindowTitle(tr("Open Checkpoint: Choose a Layer"));
    source_ = new QLabel(this);
    source_->setWordWrap(true);
    source_->setTextFormat(Qt::PlainText);  // the checkpoint's file name
    source_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    table_ = new QTableWidget(0, 8, this);
    table_->setHorizontalHeaderLabels({tr("#"), tr("Layer (module path)"), tr("Kind"), tr("h"), tr("g"),
                                       tr("d_model"), tr("Model"), tr("Window")});
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    table_->setToolTip(tr("self: a sentence attends to itself; causal: each token sees the ones before it; "
                          "cross: the target's queries read the source's keys and values.\nModel: as config.json's "
                          "model_type names it. Window: sliding W, each query sees its W latest keys; global, "
                          "every earlier key (shown for models with sliding layers)"));

    message_ = new QLabel(this);
    message_->setWordWrap(true);
    message_->setTextFormat(Qt::PlainText);  // errors quote the file

    positions_ = new QComboBox(this);
    addPositionalChoices(positions_);
    positions_->setAccessibleName(tr("Positional encoding of the layer"));
    positionsNote_ = new QLabel(this);
    positionsNote_->setWordWrap(true);
    positionsNote_->setTextFormat(Qt::PlainText);  // built from the checkpoint's data
    positionsNote_->setForegroundRole(QPalette::PlaceholderText);

    buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons_->button(QDialogButtonBox::Ok)->setText(tr("Use This Layer"));
    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(table_, &QTableWidget::itemSelectionChanged, this, [this] {
        buttons_->button(QDialogButtonBox::Ok)->setEnabled(selectedLayer().has_value());
        showPositionsOfSelectedLayer();
    });
    connect(table_, &QTableWidget::cellDoubleClicked, this, [this] { accept(); });

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(source_);
    if (!checkpoint_.headCountFromConfig) {
        // No config.json says h: ask, with the default the core chose (d_model / 64).
        headCount_ = new QSpinBox(this);
        headCount_->setRange(1, static_cast<int>(qkv::limits::maxHeads));
        headCount_->setValue(checkpoint_.layers.empty() ? 1 : static_cast<int>(checkpoint_.layers.front().headCount));
        headCount_->setPrefix(tr("h = "));
        headCount_->setToolTip(tr("The number of heads the model uses (1 to %1); it must divide d_model")
                                   .arg(qkv::limits::maxHeads));
        auto* row = new QHBoxLayout();
        auto* label = new QLabel(tr("No config.json beside the file says how many heads each layer has:"), this);
        label->setWordWrap(true);
        label->setBuddy(headCount_);
        row->addWidget(label, 1);
        row->addWidget(headCount_);
        layout->addLayout(row);
        connect(headCount_, &QSpinBox::editingFinished, this, [this] { reopenWithHeadCount(headCount_->value()); });
    }
    layout->addWidget(table_, 1);
    auto* positionsRow = new QHBoxLayout();
    auto* positionsLabel = new QLabel(tr("&Positions:"), this);
    positionsLabel->setBuddy(positions_);
    positionsRow->addWidget(positionsLabel);
    positionsRow->addWidget(positions_);
    positionsRow->addWidget(positionsNote_, 1);
    layout->addLayout(positionsRow);
    layout->addWidget(message_);
    layout->addWidget(buttons_);
    resize(760, 460);
    fillTable();
}

void CheckpointLayerDialog::fillTable()
{
    const QString config = checkpoint_.configPath.empty()
                               ? tr("no config.json beside it")
                               : tr("settings from %1").arg(QFileInfo(QString::fromStdString(checkpoint_.configPath)).fileName());
    const int count = static_cast<int>(checkpoint_.layers.size());
    source_->setText((count == 1 ? tr("%1: 1 attention layer recognised; %2.")
                                 : tr("%1: %3 attention layers recognised; %2.").arg(QStringLiteral("%1"), QStringLiteral("%2"), QString::number(count)))
                         .arg(QString::fromStdString(checkpoint_.path), config));
    table_->setRowCount(static_cast<int>(checkpoint_.layers.size()));
    const qkv::Family family = checkpoint_.layers.empty() ? qkv::Family::Bert : checkpoint_.layers.front().family;
    // Without a model_type the layers' family is all the file says ("BART/Marian").
    const QString modelName = checkpoint_.config.modelType.empty()
                                  ? fromStd(qkv::layerFamilyName(family))
                                  : QString::fromStdString(qkv::modelDisplayName(family, checkpoint_.config));
    for (int row = 0; row < table_->rowCount(); ++row) {
        const qkv::CheckpointLayer& layer = checkpoint_.layers[static_cast<std::size_t>(row)];
        const QStringList cells{QString::number(layer.index), QString::fromStdString(layer.name), fromStd(qkv::modeName(layer.kind)),
                                QString::number(layer.headCount), QString::number(layer.keyValueHeadCount),
                                QString::number(layer.d_model), modelName, windowText(layer)};
        for (int column = 0; column < cells.size(); ++column) table_->setItem(row, column, new QTableWidgetItem(cells[column]));
    }
    // Every layer global: a column of the same word would say nothing.
    table_->setColumnHidden(kWindowColumn, !qkv::hasSlidingLayers(checkpoint_.config));
    if (table_->rowCount() > 0) table_->selectRow(0);
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(selectedLayer().has_value());
}

QString CheckpointLayerDialog::windowText(const qkv::CheckpointLayer& layer) const
{
    // Only a causal layer slides (a cross or encoder layer reads every key).
    if (layer.kind != qkv::AttentionMode::DecoderCausal) return {};
    return QString::fromStdString(qkv::layerWindowLabel(checkpoint_.config, qkv::blockNumberOf(layer.name)));
}

void CheckpointLayerDialog::reopenWithHeadCount(int headCount)
{
    if (!checkpoint_.layers.empty() && checkpoint_.layers.front().headCount == headCount) return;
    const int selected = table_->currentRow();
    for (const qkv::CheckpointLayer& layer : checkpoint_.layers) {
        if (layer.d_model % headCount != 0) {
            message_->setText(tr("h = %1 does not divide d_model = %2 of %3: each head gets d_k = d_model / h columns.")
                                  .arg(headCount)
                                  .arg(layer.d_model)
                                  .arg(QString::fromStdString(layer.name)));
            return;
        }
    }
    // Headers only (a few milliseconds even for a large model): the weights are read on "Use".
    qkv::Expected<qkv::Checkpoint> reopened = qkv::openCheckpoint(checkpoint_.path, {headCount});
    if (!reopened) {
        message_->setText(QString::fromStdString(reopened.error()));
        return;
    }
    checkpoint_ = std::move(reopened).value();
    message_->clear();
    fillTable();
    selectLayer(selected);
}

std::optional<qkv::CheckpointLayer> CheckpointLayerDialog::selectedLayer() const
{
    const QList<QTableWidgetSelectionRange> ranges = table_->selectedRanges();
    if (ranges.isEmpty()) return std::nullopt;
    const int row = ranges.front().topRow();
    if (row < 0 || row >= static_cast<int>(checkpoint_.layers.size())) return std::nullopt;
    return checkpoint_.layers[static_cast<std::size_t>(row)];
}

void CheckpointLayerDialog::selectLayer(int index)
{
    if (index >= 0 && index < table_->rowCount()) table_->selectRow(index);
}

namespace {

// The positions item that is not a PositionalEncoding: the model's own input, learned positions inside.
constexpr int kLearnedPositions = -1;

}  // namespace

std::optional<qkv::PositionalEncoding> CheckpointLayerDialog::chosenPositions() const
{
    const int data = positions_->currentData().toInt();
    if (data == kLearnedPositions) return std::nullopt;
    return static_cast<qkv::PositionalEncoding>(data);
}

void CheckpointLayerDialog::showPositionsOfSelectedLayer()
{
    const std::optional<qkv::CheckpointLayer> layer = selectedLayer();
    // "Learned" is offered for a layer that reads the model's own input (its tokens and learned
    // position table: BERT's and GPT-2's first layer with its tokenizer files), and only then.
    const int learnedIndex = positions_->findData(kLearnedPositions);
    const bool learned = layer && qkv::modelInputAvailable(checkpoint_, *layer).ok();
    if (learned && learnedIndex < 0)
        positions_->insertItem(0, tr("Learned: the model's own"), kLearnedPositions);
    else if (!learned && learnedIndex >= 0)
        positions_->removeItem(learnedIndex);
    if (!layer) {
        positions_->setEnabled(false);
        positionsNote_->clear();
        usualPositions_.reset();
        return;
    }
    qkv::CheckpointLayerSettings settings;
    qkv::setCheckpointLayerPositions(checkpoint_, *layer, settings);
    const std::string fixed = qkv::fixedSettingText(settings, qkv::LayerSetting::Positional);
    // A choice made stays while the layers chosen from have the same usual positions (a new h
    // lists the layers again).
    const int usualData = learned && fixed.empty() ? kLearnedPositions : static_cast<int>(settings.positional);
    if (!fixed.empty() || usualPositions_ != usualData) positions_->setCurrentIndex(positions_->findData(usualData));
    usualPositions_ = fixed.empty() ? std::optional(usualData) : std::nullopt;
    positions_->setEnabled(fixed.empty());
    if (!fixed.empty()) {
        positionsNote_->setText(QString::fromStdString(fixed) + QLatin1Char('.'));
        return;
    }
    if (learned) {
        positionsNote_->setText(tr("Preselected: the model's own learned positions. This layer reads the model's own "
                                   "input, its tokens plus its position table, so nothing is added to X."));
        return;
    }
    // Core's words for what the preselection stands for (GPT-2 and BERT learn their positions:
    // sinusoidal ones only stand in for them), never "the usual one" for a family that has none.
    const QString usual = fromStd(settings.usualPositionsNote);
    positionsNote_->setText(tr("The checkpoint does not fix them: your choice is used. %1")
                                .arg(usual.isEmpty() ? tr("Preselected: sinusoidal, the paper's.") : usual));
}

}  // namespace qkv::ui
