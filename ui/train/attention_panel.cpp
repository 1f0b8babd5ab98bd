#include "ui/train/attention_panel.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QVBoxLayout>

#include "core/session/trained_session.hpp"
#include "ui/figure_widgets/chart_view.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/train/learned_spectrum.hpp"

namespace qkv::ui {
namespace {

QString joined(const std::vector<std::string>& tokens)
{
    QStringList words;
    for (const std::string& t : tokens) words << QString::fromStdString(t);
    return words.join(QLatin1Char(' '));
}

}  // namespace

AttentionPanel::AttentionPanel(QWidget* parent)
    : QWidget(parent), layerLabel_(new QLabel(tr("La&yer"), this)), layerBox_(new QComboBox(this)),
      example_(new QLabel(this)), columnsHost_(new QWidget(this)),
      placeholder_(new QLabel(tr("Start training to watch each head's attention form on a held-out example."), this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    QLabel* label = layerLabel_;
    label->setBuddy(layerBox_);
    layerBox_->setAccessibleName(tr("Attention layer"));
    layerBox_->setToolTip(tr("The attention layer whose heads are shown here and in every other tab"));
    layerBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    example_->setTextFormat(Qt::PlainText);  // tokens may look like tags ("<bos>")
    example_->setForegroundRole(QPalette::PlaceholderText);
    example_->setToolTip(tr("The held-out example every picture shows: never trained on"));
    example_->setMinimumWidth(50);
    example_->setWordWrap(true);
    bar->addWidget(label);
    bar->addWidget(layerBox_);
    bar->addStretch(1);
    layout->addLayout(bar);
    layout->addWidget(example_);
    placeholder_->setAlignment(Qt::AlignCenter);
    placeholder_->setWordWrap(true);
    placeholder_->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(placeholder_, 1);
    auto* columns = new QVBoxLayout(columnsHost_);
    columns->setContentsMargins(0, 0, 0, 0);
    // The variants' heads take three fifths of the height, a full W_i's spectrum under them two:
    // the heads are the pictures the tab is for, and their token labels need the room.
    columns->addLayout(new QHBoxLayout, 3);
    layout->addWidget(columnsHost_, 1);
    columnsHost_->hide();
    label->setEnabled(false);
    layerBox_->setEnabled(false);
    connect(layerBox_, &QComboBox::currentIndexChanged, this, [this](int index) {
        refresh();
        emit layerChanged(index);
    });
}

int AttentionPanel::layer() const { return layerBox_->currentIndex(); }

void AttentionPanel::setLayer(int layer)
{
    if (layer >= 0 && layer < layerBox_->count()) layerBox_->setCurrentIndex(layer);
}

ChartView* AttentionPanel::spectrum(std::size_t index) const
{
    return index < columns_.size() ? columns_[index].spectrum : nullptr;
}

FigureCanvas* AttentionPanel::canvas(std::size_t index) const
{
    return index < columns_.size() ? columns_[index].canvas : nullptr;
}

void AttentionPanel::setSnapshot(std::shared_ptr<const TrainingSnapshot> snapshot)
{
    snapshot_ = std::move(snapshot);
    const bool any = snapshot_ && !snapshot_->variants.empty();
    placeholder_->setVisible(!any);
    columnsHost_->setVisible(any);
    std::vector<qkv::ScoreForm> variants;
    if (any)
        for (const TrainedVariant& v : snapshot_->variants) variants.push_back(v.variant());
    if (variants != columnVariants_) {
        columnVariants_ = variants;
        rebuildColumns();
    }
    fillLayers();  // may refresh through the box's signal
    refresh();
}

void AttentionPanel::describeExample()
{
    if (!snapshot_ || snapshot_->variants.empty() || shown_.empty()) {
        example_->clear();
        return;
    }
    const QString example = snapshot_->targetTokens.empty()
                                ? tr("Held-out example: %1").arg(joined(snapshot_->targetInputTokens))
                                : tr("Held-out example: %1 → %2")
                                      .arg(joined(snapshot_->sourceTokens), joined(snapshot_->targetTokens));
    example_->setText(shown_.front().caption.isEmpty() ? example : tr("%1 · %2").arg(example, shown_.front().caption));
}

void AttentionPanel::fillLayers()
{
    QStringList names;
    if (snapshot_ && !snapshot_->variants.empty())
        for (const qkv::AttentionLayerTrace& l : snapshot_->variants.front().trace.layers)
            names << QString::fromStdString(l.info.name);
    QStringList current;
    for (int i = 0; i < layerBox_->count(); ++i) current << layerBox_->itemText(i);
    if (names == current) return;
    const QSignalBlocker block(layerBox_);
    layerBox_->clear();
    layerBox_->addItems(names);
    layerBox_->setEnabled(!names.isEmpty());
    layerLabel_->setEnabled(!names.isEmpty());
    if (names.isEmpty()) return;
    const auto& layers = snapshot_->variants.front().trace.layers;
    for (int i = 0; i < names.size(); ++i)
        layerBox_->setItemData(i, modeTitle(layers[static_cast<std::size_t>(i)].info.kind), Qt::ToolTipRole);
    // First the layer where learning shows (the first cross-attention, or the induction heads').
    layerBox_->setCurrentIndex(static_cast<int>(qkv::firstShownLayer(snapshot_->variants.front().model->parameters.spec)));
    emit layerChanged(layerBox_->currentIndex());
}

void AttentionPanel::rebuildColumns()
{
    // The variants' heads side by side at one size, a full model's spectrum under them all.
    for (Column& c : columns_) {
        delete c.canvas;
        delete c.spectrum;
    }
    columns_.clear();
    auto* layout = static_cast<QVBoxLayout*>(columnsHost_->layout());
    auto* canvases = static_cast<QHBoxLayout*>(layout->itemAt(0)->layout());
    for (qkv::ScoreForm variant : columnVariants_) {
        Column c;
        c.canvas = new FigureCanvas(QSize(480, 360), columnsHost_);
        c.canvas->setMinimumHint(QSize(200, 140));
        c.canvas->setAccessibleName(tr("Learned attention"));
        canvases->addWidget(c.canvas);
        if (variant == qkv::ScoreForm::Full) {
            c.spectrum = new ChartView(columnsHost_);
            c.spectrum->setMinimumSize(240, 200);  // lower, Qt Charts elides the axis's ticks to "…"
            layout->addWidget(c.spectrum, 2);
        }
        columns_.push_back(c);
    }
}

void AttentionPanel::refresh()
{
    shown_.clear();
    const int layer = this->layer();
    for (std::size_t i = 0; i < columns_.size(); ++i) {
        LearnedAttention picture;
        if (snapshot_ && layer >= 0) picture = learnedAttention(*snapshot_, i, layer);
        shown_.push_back(picture);
        FigureCanvas* canvas = columns_[i].canvas;
        canvas->setPaint([picture, canvas](QPainter& painter, const QRectF& rect) {
            paintLearnedAttention(painter, rect.adjusted(6, 4, -6, -4), picture, canvas->palette().color(QPalette::Text));
        });
        canvas->setToolTipFunction([picture, canvas](const QPointF& position) {
            return learnedAttentionToolTip(picture, canvas->figureRect().adjusted(6, 4, -6, -4),
                                           QFontMetricsF(canvas->font(), canvas), position);
        });
        if (columns_[i].spectrum && snapshot_ && layer >= 0)
            columns_[i].spectrum->setModel(learnedSpectrumModel(snapshot_->variants[i], layer));
    }
    describeExample();
}

}  // namespace qkv::ui
