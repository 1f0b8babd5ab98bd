#include "ui/circuits/head_circuits_panel.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <new>

#include "core/pipeline/pretrained_run.hpp"
#include "ui/circuits/circuit_figures.hpp"
#include "ui/circuits/circuit_store.hpp"
#include "ui/circuits/circuit_table.hpp"
#include "ui/circuits/eigenvalue_figure.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"

namespace qkv::ui {
namespace {

QLabel* mutedLabel(const QString& text, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    label->setWordWrap(true);
    label->setForegroundRole(QPalette::PlaceholderText);
    return label;
}

}  // namespace

HeadCircuitsPanel::HeadCircuitsPanel(QWidget* parent)
    : QWidget(parent), headLabel_(new QLabel(this)), scoreLabel_(new QLabel(this)), top_(new QSpinBox(this)),
      qk_(makeCircuitTable(this)), ov_(makeCircuitTable(this)), eigenvalues_(new FigureCanvas(QSize(360, 360), this)),
      status_(new QLabel(this))
{
    headLabel_->setTextFormat(Qt::PlainText);
    QFont bold = headLabel_->font();
    bold.setBold(true);
    headLabel_->setFont(bold);
    scoreLabel_->setTextFormat(Qt::PlainText);
    status_->setTextFormat(Qt::PlainText);
    status_->setWordWrap(true);
    QHBoxLayout* headline = makeHeadline();
    QWidget* tables = makeTables();
    eigenvalues_->setMinimumHint(QSize(240, 240));
    eigenvalues_->setAccessibleName(tr("Eigenvalues of the head's OV circuit"));
    eigenvalues_->setPaint([this](QPainter& painter, const QRectF& rect) {
        if (!spectrum_ || !overview_) return;
        paintEigenvaluePlane(painter, rect,
                             {spectrum_->eigenvalues, spectrum_->copyingScore, circuitHeadName(*overview_, head_)},
                             widgetFigureOptions(*eigenvalues_));
    });
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(tables);
    split->addWidget(eigenvalues_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setCollapsible(0, false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(headline);
    layout->addWidget(mutedLabel(tr("The direct path from the token embeddings through this head to the readout, "
                                    "with no positions, biases or norms. QK = which key tokens this head makes a "
                                    "query token attend to; OV = which tokens it writes into the prediction when it "
                                    "attends to a token."),
                                 this));
    layout->addWidget(split, 1);
    layout->addWidget(status_);
    connect(top_, &QSpinBox::valueChanged, this, &HeadCircuitsPanel::requestTables);
}

QHBoxLayout* HeadCircuitsPanel::makeHeadline()
{
    top_->setRange(1, 20);
    top_->setValue(5);
    top_->setToolTip(tr("How many vocabulary tokens each row lists"));
    auto* topLabel = new QLabel(tr("Top"), this);
    topLabel->setBuddy(top_);
    auto* headline = new QHBoxLayout;
    headline->addWidget(headLabel_);
    headline->addSpacing(12);
    headline->addWidget(scoreLabel_, 1);
    headline->addWidget(topLabel);
    headline->addWidget(top_);
    return headline;
}

QWidget* HeadCircuitsPanel::makeTables()
{
    auto* tables = new QWidget(this);
    auto* tablesLayout = new QVBoxLayout(tables);
    tablesLayout->setContentsMargins(0, 0, 0, 0);
    tablesLayout->addWidget(new QLabel(tr("<b>QK</b>: the key tokens each token of the prompt attends to most, by QK "
                                          "score (W_E[a] W_Q)·(W_E[b] W_K)/√d_k"),
                                       tables));
    qk_->setAccessibleName(tr("QK circuit: the keys each prompt token attends to most"));
    ov_->setAccessibleName(tr("OV circuit: the tokens the head writes for each attended token"));
    tablesLayout->addWidget(qk_, 1);
    tablesLayout->addWidget(new QLabel(tr("<b>OV</b>: the tokens the head writes into the prediction when it attends "
                                          "to each token, by OV logit W_E[s] W_V W_O W_U"),
                                       tables));
    tablesLayout->addWidget(ov_, 1);
    for (QLabel* label : tables->findChildren<QLabel*>()) label->setWordWrap(true);
    return tables;
}

void HeadCircuitsPanel::setHead(std::shared_ptr<const qkv::ModelOverview> overview, qkv::CircuitHead head)
{
    if (!overview || head.layer < 0 || head.layer >= overview->layerCount()) return;
    std::vector<std::int32_t> ids = qkv::distinctTokenIds(
        qkv::layerQueryTokens(*overview->model, overview->sentences, overview->layer(head.layer)).ids());
    const bool sameModel = overview_ && overview_->model == overview->model;
    if (sameModel && head == head_ && ids == promptIds_) return;
    if (!sameModel || !(head == head_)) {
        spectrum_.reset();
        spectrumProblem_.clear();
    }
    overview_ = std::move(overview);
    head_ = head;
    promptIds_ = std::move(ids);
    showHeadline();
    requestTables();
    if (!spectrum_) requestSpectrum();
}

void HeadCircuitsPanel::setBasisReady()
{
    if (!spectrum_) requestSpectrum();
}

void HeadCircuitsPanel::requestTables()
{
    if (!overview_) return;
    tablesProblem_.clear();
    tablesPending_ = true;
    tables_.request([model = overview_->model, head = head_, ids = promptIds_, k = qkv::Index(top_->value())] {
        Tables tables;
        try {
            qkv::Expected<std::vector<qkv::TokenCircuit>> qk =
                qkv::tokenCircuits(*model, head, qkv::CircuitSide::QK, ids, k);
            qkv::Expected<std::vector<qkv::TokenCircuit>> ov =
                qkv::tokenCircuits(*model, head, qkv::CircuitSide::OV, ids, k);
            if (qk) tables.qk = std::move(*qk);
            if (ov) tables.ov = std::move(*ov);
            if (!qk || !ov) tables.problem = QString::fromStdString(!qk ? qk.error() : ov.error());
        } catch (const std::bad_alloc&) {
            tables.problem = tr("Not enough memory for this head's circuits.");
        }
        return tables;
    });
    showStatus();
}

void HeadCircuitsPanel::requestSpectrum()
{
    if (!overview_ || !storedBasis(overview_->model)) return;  // the tab computes W_U W_E first
    spectrumPending_ = true;
    spectra_.request([model = overview_->model, head = head_] {
        Spectrum out;
        qkv::Expected<qkv::HeadSpectrum> spectrum = headSpectrumOf(model, head);
        if (spectrum)
            out.spectrum = std::move(*spectrum);
        else
            out.problem = QString::fromStdString(spectrum.error());
        return out;
    });
    showStatus();
}

void HeadCircuitsPanel::deliverTables(const Tables& tables)
{
    tablesPending_ = false;
    tablesProblem_ = tables.problem;
    fillCircuitTable(*qk_, tables.qk, tr("query token"), tr("QK score"));
    fillCircuitTable(*ov_, tables.ov, tr("attended token"), tr("OV logit"));
    showStatus();
    emit computed();
}

void HeadCircuitsPanel::deliverSpectrum(const Spectrum& spectrum)
{
    spectrumPending_ = false;
    spectrum_ = spectrum.spectrum;
    spectrumProblem_ = spectrum.problem;
    showHeadline();
    showStatus();
    eigenvalues_->update();
    emit computed();
}

void HeadCircuitsPanel::showHeadline()
{
    if (!overview_) return;
    const qkv::LayerRun& layer = overview_->layer(head_.layer);
    headLabel_->setText(tr("Head %1 (layer %2, head %3 of %4)")
                            .arg(circuitHeadName(*overview_, head_))
                            .arg(layer.layer.index)
                            .arg(head_.head + 1)
                            .arg(layer.layer.headCount));
    scoreLabel_->setText(spectrum_ ? copyingScoreWords(spectrum_->copyingScore) : QString());
}

void HeadCircuitsPanel::showStatus()
{
    QStringList parts;
    if (tablesPending_) parts << tr("Computing the QK and OV tables over the whole vocabulary…");
    if (spectrumPending_) parts << tr("Computing the eigenvalues…");
    if (!spectrum_ && spectrumProblem_.isEmpty() && !spectrumPending_ && overview_ && !storedBasis(overview_->model))
        parts << tr("The eigenvalues follow once W_U W_E is computed.");
    if (!tablesProblem_.isEmpty()) parts << tablesProblem_;
    if (!spectrumProblem_.isEmpty()) parts << spectrumProblem_;
    status_->setText(parts.join(QLatin1Char(' ')));
}

}  // namespace qkv::ui
