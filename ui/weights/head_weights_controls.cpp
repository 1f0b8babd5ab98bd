// HeadWeightsView's two rows of controls: what each does, and keeping them in step with the
// document (head count, the head's switch, which actions apply).
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>

#include "ui/document/document.hpp"
#include "ui/document/head_actions.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/views/head_box.hpp"
#include "ui/weights/head_weights_view.hpp"

namespace qkv::ui {

QWidget* HeadWeightsView::makeControls()
{
    auto* box = new QWidget(this);
    auto* rows = new QVBoxLayout(box);
    rows->setContentsMargins(0, 0, 0, 0);
    rows->setSpacing(4);
    // Three short rows rather than two long ones: the tab is ~650 px wide in a 1000 px window.
    auto* top = new QHBoxLayout;
    auto* middle = new QHBoxLayout;
    auto* bottom = new QHBoxLayout;
    rows->addLayout(top);
    rows->addLayout(middle);
    rows->addLayout(bottom);
    const auto label = [this](const QString& text, QWidget* buddy) {
        auto* l = new QLabel(text, this);
        l->setBuddy(buddy);
        return l;
    };

    // Row 1: the head, the block, scale, zero, swap. Row 2: preset, switch, re-randomise, copy.
    // Row 3: the clicked cell, painting, what switching this head off changes.
    HeadBox* heads = makeHeadBox(tr("The head whose weights are shown and edited"));
    top->addWidget(label(tr("H&ead"), heads));
    top->addWidget(heads);
    for (const qkv::HeadMatrix m : kHeadMatrices) blockBox_->addItem(QString::fromUtf8(qkv::headMatrixName(m).data()));
    blockBox_->addItem(tr("All four"));
    blockBox_->setCurrentIndex(kHeadMatrixCount);
    blockBox_->setToolTip(tr("The block Scale and Zero act on (clicking a cell chooses its block)"));
    top->addWidget(label(tr("&Block"), blockBox_));
    top->addWidget(blockBox_);
    factorBox_->setRange(-100.0, 100.0);
    factorBox_->setDecimals(3);
    factorBox_->setValue(2.0);
    factorBox_->setMaximumWidth(100);
    factorBox_->setPrefix(QStringLiteral("× "));
    factorBox_->setToolTip(tr("The factor Scale multiplies the block by"));
    factorBox_->setAccessibleName(tr("Scale factor"));
    top->addWidget(factorBox_);
    scaleButton_->setToolTip(tr("Multiply the block by the factor (one undo step)"));
    connect(scaleButton_, &QPushButton::clicked, this,
            [this] { scaleHeadBlocks(*document_, head(), chosenBlocks(), static_cast<float>(factorBox_->value())); });
    top->addWidget(scaleButton_);
    zeroButton_->setToolTip(tr("Set every entry of the block to 0 (one undo step)"));
    connect(zeroButton_, &QPushButton::clicked, this, [this] { zeroHeadBlocks(*document_, head(), chosenBlocks()); });
    top->addWidget(zeroButton_);
    swapButton_->setToolTip(
        tr("Exchange W_i^Q and W_i^K: W_i becomes its transpose, the head looks from keys to queries"));
    connect(swapButton_, &QPushButton::clicked, this, [this] { swapHeadQueryAndKey(*document_, head()); });
    top->addWidget(swapButton_);
    presetButton_->setText(tr("&Preset"));
    presetButton_->setPopupMode(QToolButton::InstantPopup);
    presetButton_->setToolTip(tr("Give this head a preset (the Head menu's list): one undo step"));
    auto* presets = new QMenu(presetButton_);
    connect(presets, &QMenu::aboutToShow, this, [this, presets] {
        presets->clear();
        if (head() < document_->config().headCount) fillPresetMenu(presets, document_, head());
    });
    presetButton_->setMenu(presets);
    top->addStretch(1);
    middle->addWidget(presetButton_);
    switchOffButton_->setText(tr("Switch o&ff"));
    switchOffButton_->setCheckable(true);
    switchOffButton_->setToolTip(tr("Zero the head's block of Concat before W^O (head ablation)"));
    connect(switchOffButton_, &QToolButton::clicked, this,
            [this](bool off) { setHeadSwitchedOff(*document_, head(), off); });
    middle->addWidget(switchOffButton_);
    middle->addSpacing(12);
    cellLabel_->setMinimumWidth(cellLabel_->fontMetrics().horizontalAdvance(QStringLiteral("W_16^Q[1023, 63] =")));
    cellLabel_->setTextFormat(Qt::PlainText);
    bottom->addWidget(cellLabel_);
    valueBox_->setRange(-1e6, 1e6);
    valueBox_->setDecimals(4);
    valueBox_->setSingleStep(0.1);
    valueBox_->setToolTip(tr("The value for the clicked cell (Enter sets it) or for painting"));
    valueBox_->setAccessibleName(tr("Cell value"));
    valueBox_->setAccessibleDescription(valueBox_->toolTip());
    connect(valueBox_, &QDoubleSpinBox::editingFinished, this, [this] {
        if (valueBox_->hasFocus()) setCell();
    });
    bottom->addWidget(valueBox_);
    setButton_->setToolTip(tr("Set the clicked cell to the value (one undo step)"));
    connect(setButton_, &QPushButton::clicked, this, &HeadWeightsView::setCell);
    bottom->addWidget(setButton_);
    paintButton_->setText(tr("P&aint"));
    paintButton_->setCheckable(true);
    bottom->addWidget(paintButton_);
    seedBox_->setRange(0, 99'999'999);
    seedBox_->setMaximumWidth(110);
    seedBox_->setValue(1);
    seedBox_->setToolTip(tr("The seed for the head's new random weights"));
    middle->addWidget(label(tr("S&eed"), seedBox_));
    middle->addWidget(seedBox_);
    rerandomiseButton_->setToolTip(tr("New random W_i^Q, W_i^K, W_i^V and W_i^O from the seed (one undo step)"));
    connect(rerandomiseButton_, &QPushButton::clicked, this, [this] {
        rerandomiseHeadWeights(*document_, head(), static_cast<std::uint64_t>(seedBox_->value()));
        seedBox_->setValue(seedBox_->value() + 1 < seedBox_->maximum() ? seedBox_->value() + 1 : 0);
    });
    middle->addWidget(rerandomiseButton_);
    middle->addSpacing(12);
    copyButton_->setToolTip(tr("Copy this head's four blocks (and biases) onto the chosen head (one undo step)"));
    connect(copyButton_, &QPushButton::clicked, this,
            [this] { copyHeadOnto(*document_, head(), static_cast<qkv::Index>(copyTargetBox_->currentIndex())); });
    middle->addWidget(copyButton_);
    copyTargetBox_->setAccessibleName(tr("Head to copy onto"));
    middle->addWidget(copyTargetBox_);
    middle->addStretch(1);
    bottom->addSpacing(12);
    // The ablation sentence must never widen the tab: it wraps, and the panel repeats it.
    ablationLabel_->setTextFormat(Qt::PlainText);  // names tokens
    ablationLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    ablationLabel_->setWordWrap(true);
    ablationLabel_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bottom->addWidget(ablationLabel_, 1);
    // Tab in reading order, row by row, then the weights drawn below (the widgets were made in
    // another order).
    const QList<QWidget*> reading{heads,          blockBox_,          factorBox_,     scaleButton_, zeroButton_,
                                  swapButton_,    presetButton_,      switchOffButton_, seedBox_,   rerandomiseButton_,
                                  copyButton_,    copyTargetBox_,     valueBox_,      setButton_,   paintButton_,
                                  canvas()};
    for (qsizetype i = 1; i < reading.size(); ++i) setTabOrder(reading[i - 1], reading[i]);
    return box;
}

void HeadWeightsView::updateControls()
{
    const auto& r = result();
    const qkv::Index h = r ? r->attention.headCount() : 0;
    {
        const QSignalBlocker blocker(copyTargetBox_);
        if (copyTargetBox_->count() != h || !r) {
            copyTargetBox_->clear();
            for (qkv::Index i = 0; i < h; ++i) copyTargetBox_->addItem(headName(i));
        }
        if (copyTargetBox_->currentIndex() == static_cast<int>(head()) && h > 1)
            copyTargetBox_->setCurrentIndex(static_cast<int>((head() + 1) % h));
    }
    const bool have = r && head() < h;
    for (QWidget* w : std::initializer_list<QWidget*>{scaleButton_, zeroButton_, swapButton_, presetButton_,
                                                      switchOffButton_, rerandomiseButton_, valueBox_})
        w->setEnabled(have);
    copyButton_->setEnabled(have && h > 1);
    copyTargetBox_->setEnabled(have && h > 1);
    setButton_->setEnabled(have && mark_.matrix >= 0);
    const bool paintable = have && r->config.d_model <= kPaintableModelWidth;
    paintButton_->setEnabled(paintable);
    paintButton_->setToolTip(
        paintable
            ? tr("Drag over a block to set every cell passed to the value (one undo step per stroke)")
            : tr("Painting works on blocks of d_model ≤ %1; click a cell to type its value").arg(kPaintableModelWidth));
    {
        const QSignalBlocker blocker(switchOffButton_);
        switchOffButton_->setChecked(have && r->config.isAblated(head()));
    }
    cellLabel_->setText(mark_.matrix >= 0
                            ? tr("%1[%2, %3] =")
                                  .arg(headMatrixSymbol(static_cast<qkv::HeadMatrix>(mark_.matrix), head()))
                                  .arg(mark_.row)
                                  .arg(mark_.column)
                            : tr("Click a cell:"));
    ablationLabel_->setText(model() && have ? ablationSentence(*model(), head(), selection()->queryRow()) : QString());
}

}  // namespace qkv::ui
