#include "ui/steps/step_view.hpp"

#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>

#include <cmath>

#include "ui/document/head_selection.hpp"
#include "ui/figures/figure.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/steps/vector_bars.hpp"

namespace qkv::ui {

StepView::StepView(HeadSelection* selection, QWidget* parent)
    : ResultView(selection, Change::Head | Change::Cell, parent), page_(new QWidget), header_(new QLabel),
      queryBars_(new VectorBars), keyBars_(new VectorBars), productBars_(new VectorBars), dot_(new QLabel),
      scale_(new QLabel), mask_(new QLabel), softmaxBars_(new VectorBars), softmax_(new QLabel),
      contributionBars_(new VectorBars), outputBars_(new VectorBars), output_(new QLabel)
{
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    outer->addWidget(scroll);
    auto* layout = new QVBoxLayout(page_);
    layout->setContentsMargins(12, 10, 12, 10);
    layout->setSpacing(4);
    header_->setWordWrap(true);
    header_->setTextFormat(Qt::RichText);
    QFont big = header_->font();
    big.setPointSizeF(big.pointSizeF() * 1.15);
    header_->setFont(big);
    layout->addWidget(header_);

    for (QLabel* label : {dot_, scale_, mask_, softmax_, output_}) {
        label->setTextFormat(Qt::RichText);
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    const QColor qColor(0x2c, 0x7f, 0xb8), kColor(0x1b, 0x9e, 0x77), productColor(0x75, 0x70, 0xb3);
    queryBars_->setColors(qColor, qColor.lighter(140));
    keyBars_->setColors(kColor, kColor.lighter(140));
    productBars_->setColors(productColor, QColor(0xd9, 0x5f, 0x02));
    softmaxBars_->setPercent(true);
    contributionBars_->setColors(QColor(0x66, 0xa6, 0x1e), QColor(0x66, 0xa6, 0x1e));
    outputBars_->setColors(QColor(0xe7, 0x29, 0x8a), QColor(0xe7, 0x29, 0x8a).lighter(140));

    addStep(tr("① Query vector q_i: row i of Q_i = X_q W_i^Q (+ b_i^Q)"), queryBars_);
    addStep(tr("② Key vector k_j: row j of K_i = X_kv W_i^K (+ b_i^K)"), keyBars_);
    addStep(tr("③ Element-wise product q_i ⊙ k_j; its sum is the dot product"), productBars_);
    layout->addWidget(dot_);
    addStep(tr("④ Scale by 1/√d_k"), scale_);
    addStep(tr("⑤ Mask"), mask_);
    addStep(tr("⑥ Softmax over the row: every key for this query (the chosen key highlighted)"), softmaxBars_);
    layout->addWidget(softmax_);
    addStep(tr("⑦ Head output = Σ_j a_ij v_j: how much each value row contributes (|a_ij v_j|)"),
            contributionBars_);
    layout->addWidget(outputBars_);
    layout->addWidget(output_);
    layout->addStretch(1);
    scroll->setWidget(page_);

    showNumbers();  // the empty state until a result arrives
}

QString StepView::title() const { return tr("&Step by step"); }

QStringList StepView::figureNames() const { return figureNamesOfView(QStringLiteral("steps")); }

QLabel* StepView::addStep(const QString& title, QWidget* content)
{
    auto* label = new QLabel(title, page_);
    QFont bold = label->font();
    bold.setBold(true);
    label->setFont(bold);
    label->setWordWrap(true);
    label->setContentsMargins(0, 10, 0, 0);
    page_->layout()->addWidget(label);
    if (content) page_->layout()->addWidget(content);
    return label;
}

QString StepView::number(double value)
{
    if (std::isinf(value)) return value < 0 ? QStringLiteral("−∞") : QStringLiteral("+∞");
    return QString::number(value, 'f', 4);
}

void StepView::refresh(Changes) { showNumbers(); }

QString StepView::dotText() const { return dot_->text(); }
QString StepView::scaleText() const { return scale_->text(); }
QString StepView::maskText() const { return mask_->text(); }
QString StepView::softmaxText() const { return softmax_->text(); }
QString StepView::outputText() const { return output_->text(); }

void StepView::showNumbers()
{
    const HeadSelection& s = *selection();
    numbers_ = result() ? gatherStepNumbers(*result(), s.head(), s.queryRow(), s.keyColumn()) : StepNumbers{};
    const StepNumbers& n = numbers_;
    page_->setEnabled(n.valid);
    if (!n.valid) {
        header_->setText(tr("Select a cell in the Heads tab to follow it step by step."));
        return;
    }
    // Heads from 1, token positions from 0 (the project's one convention).
    header_->setText(tr("<b>Head %1</b> · query «%2» (position %3) · key «%4» (position %5) · d_k = %6")
                         .arg(n.head + 1)
                         .arg(n.queryLabel.toHtmlEscaped())
                         .arg(n.query)
                         .arg(n.keyLabel.toHtmlEscaped())
                         .arg(n.key)
                         .arg(n.d_k));
    queryBars_->setValues(n.q);
    keyBars_->setValues(n.k);
    productBars_->setValues(n.products);
    // One name per quantity, as in the tooltips and colour bars (figure_text.hpp).
    dot_->setText(tr("%1: q_i · k_j = Σ (q_i ⊙ k_j) = <b>%2</b>").arg(rawScoreName().toHtmlEscaped(), number(n.dotProduct)));
    scale_->setText(tr("%1: s_ij = q_i · k_j / √d_k = %2 / %3 = <b>%4</b>")
                        .arg(scaledScoreName().toHtmlEscaped(), number(n.dotProduct), number(n.sqrtDk), number(n.scaledScore)));
    if (n.masked)
        mask_->setText(tr("Masked: key %1 comes after query %2 or is padding, so s_ij becomes <b>−∞</b> "
                          "and its weight is exactly 0.")
                           .arg(n.key)
                           .arg(n.query));
    else
        mask_->setText(tr("Visible: this key is not masked, s_ij stays <b>%1</b>.").arg(number(n.scaledScore)));
    softmaxBars_->setValues(n.rowWeights);
    softmaxBars_->setLabels(n.keyLabels);
    softmaxBars_->setHighlighted(n.key);
    if (n.rowFullyMasked)
        softmax_->setText(tr("Every key of this query is masked: the row is all zeros (flagged, never NaN)."));
    else
        softmax_->setText(tr("a_ij = exp(s_ij − max_j s) / Σ_j exp(s_j − max_j s) = <b>%1</b> (%2 %)")
                              .arg(number(n.weight))
                              .arg(n.weight * 100.0, 0, 'f', 1));
    contributionBars_->setValues(n.contributionNorms);
    contributionBars_->setLabels(n.keyLabels);
    contributionBars_->setHighlighted(n.key);
    outputBars_->setValues(n.headOutput);
    QStringList entries;
    for (std::size_t i = 0; i < n.headOutput.size() && i < 8; ++i) entries << number(n.headOutput[i]);
    if (n.headOutput.size() > 8) entries << QStringLiteral("…");
    output_->setText(tr("head_i row %1 (d_k = %2 entries) = [%3]").arg(n.query).arg(n.d_k).arg(entries.join(QStringLiteral(", "))));
}

QSize StepView::sizeHint() const { return {800, 700}; }

}  // namespace qkv::ui
