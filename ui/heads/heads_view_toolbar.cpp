// HeadsView's toolbar: what the grid shows and its colours, the colour scale, a long layer's
// block maxima, the selected queries typed as 120 or 120:180, and the zoom; and the Queries
// field's reading of what is typed.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include "core/common/limits.hpp"
#include "core/common/position_span.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/figures/shown_text.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/heads/heads_view.hpp"

namespace qkv::ui {

QLayout* HeadsView::makeToolbar()
{
    // Two rows, so that every label stays whole at 1000 x 700: what is
    // shown and how it is coloured, then the colour scale and the zoom.
    auto* toolbar = new QVBoxLayout;
    auto* first = new QHBoxLayout;
    auto* second = new QHBoxLayout;
    toolbar->addLayout(first);
    toolbar->addLayout(second);

    auto* showLabel = new QLabel(tr("S&how"), this);
    showLabel->setBuddy(kindBox_);
    for (const ScoreKindEntry& entry : kScoreKinds)
        kindBox_->addItem(scoreKindName(entry.value), static_cast<int>(entry.value));
    kindBox_->setToolTip(
        tr("Attention weights: softmax of each row (rows sum to 1).\n"
           "Scaled scores: q·k/√d_k before the mask (the raw score is q·k).\n"
           "Scaled scores after mask: what the softmax sees; masked pairs are −∞ (hatched).\n"
           "Value-weighted attention: ‖a·f(x)‖ with f(x) = (x W^V + b^V) W^O, the length of what\n"
           "each key adds to the query's output through the head (Kobayashi et al. 2020):\n"
           "a large weight on a key with a short f(x) moves the output little."));
    auto* colormapLabel = new QLabel(tr("&Colormap"), this);
    colormapLabel->setBuddy(colormapBox_);
    for (ColormapName name : Colormap::all())
        colormapBox_->addItem(Colormap::get(name).displayName(), static_cast<int>(name));
    first->addWidget(showLabel);
    first->addWidget(kindBox_);
    first->addSpacing(12);
    first->addWidget(colormapLabel);
    first->addWidget(colormapBox_);
    first->addSpacing(12);
    first->addWidget(averageBox_);
    first->addStretch(1);
    blockMaximaBox_->setToolTip(
        tr("A long layer (past %1 tokens) is kept in blocks of positions, not whole.\n"
           "Off: each block's mean weight. On: its largest weight, so a single key that a query\n"
           "attends to sharply stays visible where the mean would average it away.")
            .arg(groupedInteger(qkv::limits::maxFullMapTokens)));
    blockMaximaBox_->hide();

    auto* rangeLabel = new QLabel(tr("Colour &scale"), this);
    rangeLabel->setBuddy(rangeBox_);
    rangeBox_->addItem(tr("Automatic"), static_cast<int>(qkv::ColorRange::Mode::Automatic));
    rangeBox_->addItem(tr("0 to 1"), static_cast<int>(qkv::ColorRange::Mode::UnitInterval));
    rangeBox_->addItem(tr("Fixed"), static_cast<int>(qkv::ColorRange::Mode::Fixed));
    rangeBox_->setToolTip(
        tr("Automatic: weights and value-weighted norms from 0 to their 99th percentile, scores ±their "
           "largest magnitude (the colour bar says which).\n0 to 1: the whole range of a weight "
           "(scores: −1 to 1; value-weighted norms, which have no upper bound: 0 to the largest).\n"
           "Fixed: from the low to the high value; values beyond saturate.\n"
           "Exported figures use the same scale."));
    for (QDoubleSpinBox* box : {lowBox_, highBox_}) {
        box->setRange(-1e6, 1e6);
        box->setDecimals(3);
        box->setSingleStep(0.05);
        box->setAccelerated(true);
    }
    lowBox_->setPrefix(tr("from "));
    highBox_->setPrefix(tr("to "));
    auto makeButton = [this](const QString& text, const QString& tip) {
        auto* button = new QToolButton(this);
        button->setText(text);
        button->setToolTip(tip);
        button->setAutoRaise(true);
        return button;
    };
    QToolButton* zoomOut = makeButton(QStringLiteral("−"), tr("Zoom out (Ctrl+wheel)"));
    QToolButton* zoomIn = makeButton(QStringLiteral("+"), tr("Zoom in (Ctrl+wheel)"));
    QToolButton* zoomFit = makeButton(tr("Fit"), tr("Fit all heads in the window"));
    zoomLabel_->setMinimumWidth(zoomLabel_->fontMetrics().horizontalAdvance(QStringLiteral("1600 %")));
    second->addWidget(rangeLabel);
    second->addWidget(rangeBox_);
    second->addWidget(lowBox_);
    second->addWidget(highBox_);
    second->addWidget(blockMaximaBox_);  // no spacer: hidden, it takes no room at 1000 x 700
    second->addSpacing(12);
    auto* queriesLabel = new QLabel(tr("&Queries"), this);
    queriesLabel->setBuddy(queriesBox_);
    queriesBox_->setPlaceholderText(tr("120 or 120:180"));
    queriesBox_->setMaximumWidth(queriesBox_->fontMetrics().horizontalAdvance(QStringLiteral("00000:00000")) + 16);
    queriesTip_ = tr("The selected query, or several together: first:end (end excluded, as\n"
                     "export --rows). Their mean attention row and its maximum are drawn\n"
                     "beneath the grid. Shift-click or drag over rows selects them too.");
    queriesBox_->setToolTip(queriesTip_);
    second->addWidget(queriesLabel);
    second->addWidget(queriesBox_);
    second->addStretch(1);
    second->addWidget(zoomOut);
    second->addWidget(zoomLabel_);
    second->addWidget(zoomIn);
    second->addWidget(zoomFit);
    // Tab in reading order: the first line left to right, then the second (the boxes were made
    // in another order).
    const QList<QWidget*> reading{kindBox_, colormapBox_, averageBox_, rangeBox_, lowBox_,  highBox_,
                                  blockMaximaBox_, queriesBox_, zoomOut, zoomIn, zoomFit};
    for (qsizetype i = 1; i < reading.size(); ++i) setTabOrder(reading[i - 1], reading[i]);

    connect(kindBox_, &QComboBox::currentIndexChanged, this,
            [this](int index) { setScoreKind(static_cast<ScoreKind>(kindBox_->itemData(index).toInt())); });
    connect(colormapBox_, &QComboBox::currentIndexChanged, this,
            [this](int index) { setColormap(static_cast<ColormapName>(colormapBox_->itemData(index).toInt())); });
    connect(averageBox_, &QCheckBox::toggled, this, &HeadsView::setShowAverage);
    connect(blockMaximaBox_, &QCheckBox::toggled, this, &HeadsView::setBlockMaxima);
    connect(queriesBox_, &QLineEdit::editingFinished, this, &HeadsView::selectTypedQueries);
    connect(selection(), &HeadSelection::cellChanged, this, &HeadsView::showQueries);
    connect(selection(), &HeadSelection::querySpanChanged, this, &HeadsView::showQueries);
    connect(rangeBox_, &QComboBox::currentIndexChanged, this, [this](int index) {
        qkv::ColorRange range = colorRange_;
        range.mode = static_cast<qkv::ColorRange::Mode>(rangeBox_->itemData(index).toInt());
        if (range.mode == qkv::ColorRange::Mode::Fixed && canvas_->figure()) {
            // Fixing starts from the scale shown now, which the user then edits.
            range.low = canvas_->figure()->minValue();
            range.high = canvas_->figure()->maxValue();
        }
        setColorRange(range);
    });
    const auto fixedValuesEdited = [this] {
        if (!(lowBox_->value() < highBox_->value())) return;  // wait for a valid pair
        setColorRange({qkv::ColorRange::Mode::Fixed, lowBox_->value(), highBox_->value()});
    };
    connect(lowBox_, &QDoubleSpinBox::valueChanged, this, fixedValuesEdited);
    connect(highBox_, &QDoubleSpinBox::valueChanged, this, fixedValuesEdited);
    connect(zoomIn, &QToolButton::clicked, this, [this] { zoomBy(1); });
    connect(zoomOut, &QToolButton::clicked, this, [this] { zoomBy(-1); });
    connect(zoomFit, &QToolButton::clicked, this, &HeadsView::zoomToFit);
    return toolbar;
}

void HeadsView::showQueries()
{
    const HeadSelection* s = selection();
    queriesBox_->setText(s->hasQuerySpan() ? QStringLiteral("%1:%2").arg(s->queryRow()).arg(s->querySpanEnd())
                                           : QString::number(s->queryRow()));
    queriesBox_->setStyleSheet(QString());
    queriesBox_->setToolTip(queriesTip_);
    updateDetail();
}

void HeadsView::selectTypedQueries()
{
    if (!result()) return;
    const auto span =
        qkv::parsePositionSpan(queriesBox_->text().toStdString(), result()->attention.queryCount(), "query");
    if (!span) {
        // Said where the user typed; the selection stays as it was.
        queriesBox_->setStyleSheet(QStringLiteral("QLineEdit { border: 2px solid #c0392b; }"));
        // Plain text made rich: what was typed is quoted in it and shown as typed.
        const QString why = plainAsRichText(QString::fromStdString(span.error()));
        queriesBox_->setToolTip(why);
        QToolTip::showText(queriesBox_->mapToGlobal(QPoint(0, queriesBox_->height())), why, queriesBox_);
        return;
    }
    selection()->setQuerySpan(static_cast<int>(span->begin), static_cast<int>(span->end));
    showQueries();
}

}  // namespace qkv::ui
