#include "ui/factored/factored_view.hpp"

#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/accessibility/accessible_cell_table.hpp"
#include "ui/background/work_placement.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/factored/factor_product_widget.hpp"
#include "ui/factored/factored_figures.hpp"
#include "ui/factored/factored_head_model.hpp"
#include "ui/factored/factored_tables.hpp"
#include "ui/factored/spectrum_chart.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figure_widgets/figure_grid.hpp"
#include "ui/figures/figure.hpp"
#include "ui/views/head_box.hpp"

namespace qkv::ui {

FactoredView::FactoredView(HeadSelection* selection, QWidget* parent)
    : ResultView(selection, Change::Head, parent),
      factors_([this](std::shared_ptr<const FactoredHeadModel> model) { showFactors(std::move(model)); }),
      scores_([this](std::shared_ptr<const FactoredHeadModel> model) { showScores(std::move(model)); })
{
    title_ = new QLabel(tr("Factored W_i: no result yet"), this);
    QFont titleFont = title_->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    title_->setFont(titleFont);
    title_->setWordWrap(true);  // whole at any width
    title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    title_->setTextFormat(Qt::PlainText);
    tradeOff_ = new QLabel(this);
    tradeOff_->setWordWrap(true);
    tradeOff_->setTextFormat(Qt::PlainText);
    tradeOff_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // The box only sets the selection; the view follows the selection like every other view, so
    // a change of head rebuilds once.
    headBox_ = new HeadBox(this->selection(), this);
    headBox_->setToolTip(tr("The head whose W_i is shown"));
    resetZoom_ = new QPushButton(tr("Whole W_i"), this);
    resetZoom_->setToolTip(tr("Show all of W_i again (or double click it)"));
    resetZoom_->setEnabled(false);

    auto* header = new QHBoxLayout();
    header->addWidget(title_, 1);
    auto* headLabel = new QLabel(tr("H&ead"), this);
    headLabel->setBuddy(headBox_);
    header->addWidget(headLabel);
    header->addWidget(headBox_);
    header->addWidget(resetZoom_);

    product_ = new FactorProductWidget(this);
    fused_ = new FigureCanvas(QSize(520, 520), this);
    fusedImage_ = std::make_unique<OffscreenFigure>(fused_);
    fused_->setMinimumHint(QSize(160, 120));
    equivalence_ = new FigureCanvas(QSize(620, 360), this);
    equivalence_->setMinimumHint(QSize(160, 120));
    equivalenceImage_ = std::make_unique<OffscreenFigure>(equivalence_);
    spectrum_ = new SpectrumChart(this);
    const ShownFactoredModel shown = [this] { return model_.get(); };
    setAccessibleCellTable(product_, factorProductTable(shown));
    equivalence_->setCellTable(scoresBothWaysTable(shown));
    statistics_ = new QLabel(this);
    statistics_->setTextFormat(Qt::RichText);
    statistics_->setWordWrap(true);
    statistics_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* spectrumPanel = new QWidget(this);
    auto* spectrumLayout = new QVBoxLayout(spectrumPanel);
    spectrumLayout->setContentsMargins(0, 0, 0, 0);
    spectrumLayout->addWidget(spectrum_, 1);
    spectrumLayout->addWidget(statistics_);

    // Two columns when each panel gets 480 x 340 (both rows whole in a 1400 x 900 window), else
    // one above the other, scrolling: never squashed.
    auto* grid = new FigureGrid(QSize(480, 340), 2);
    grid->addWidget(product_);
    grid->addWidget(fused_);
    grid->addWidget(spectrumPanel);
    grid->addWidget(equivalence_);
    auto* scroll = new QScrollArea(this);
    scroll->setAccessibleName(tr("Factored W_i figures"));
    scroll->setWidget(grid);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addWidget(tradeOff_);
    layout->addWidget(scroll, 1);

    // Both figures draw every entry of a d_model x d_model or n_q x n_k matrix (at 4,096, tens of
    // millions): above the GUI thread's limit they are painted on the pool.
    paintOffscreen(fused_, *fusedImage_, &fusedLayoutWork, &paintFusedLayout);
    paintOffscreen(equivalence_, *equivalenceImage_, &scoreEquivalenceWork, &paintScoreEquivalence);
    connect(resetZoom_, &QPushButton::clicked, product_, &FactorProductWidget::resetZoom);
    connect(product_, &FactorProductWidget::windowChanged, this, [this](const MatrixWindow& window) {
        const Index d_model = model_ ? model_->d_model : 0;
        resetZoom_->setEnabled(window.rows < d_model);
    });
}

void FactoredView::paintOffscreen(FigureCanvas* canvas, OffscreenFigure& image, double (*work)(const FactoredHeadModel&),
                                  void (*paint)(QPainter&, const QRectF&, const FactoredHeadModel&, const FigurePalette&))
{
    canvas->setPaint([this, canvas, &image, work, paint](QPainter& painter, const QRectF& rect) {
        if (!model_) return;
        const FigurePalette colors = figurePalette(screenFigureOptions(*canvas, *this->selection()));
        const std::uint64_t key = FigureKey()
                                      .add(model_.get())
                                      .add(colors.text)
                                      .add(colors.mutedText)
                                      .add(colors.emphasis)
                                      .add(colors.background)
                                      .add(canvas->font())
                                      .value();
        image.paint(
            painter, rect, key, work(*model_),
            [model = model_, colors, paint](QPainter& p, const QRectF& r) { paint(p, r, *model, colors); }, model_);
    });
}

FactoredView::~FactoredView() = default;  // scores_ waits for its running work

QString FactoredView::title() const { return tr("&Factored W_i"); }
QString FactoredView::summary() const
{
    return tr(
        "Factored W_i = W_i^Q (W_i^K)ᵀ: the two thin matrices, their product, its spectrum and rank, and how one W^Q "
        "splits into heads");
}

bool FactoredView::equivalencePending() const { return model_ && model_->valid() && !model_->scoresReady; }

void FactoredView::setSelectedHead(int head) { selection()->setHead(head); }

void FactoredView::refresh(Changes) { rebuild(); }

void FactoredView::rebuild()
{
    // Two steps, each through a latest-only task, inline when small and on the pool when large:
    // the factors and the spectrum (at h = 1 and d_model 4096, two QRs and an SVD of 4096 x 4096:
    // seconds), then the scores both ways, which need the dense W_i.
    const std::shared_ptr<const Result> result = this->result();
    const Index head = selection()->head();
    scores_.cancel();  // they would be of the previous factors
    const auto where = placementFor(FactoredHeadModel::factorWork(result.get()));
    if (where == LatestTaskBase::Run::InBackground)
        title_->setText(tr("Head %1: computing W_i's factors and spectrum…").arg(head + 1));
    factors_.request(
        [result, head] {
            return std::make_shared<const FactoredHeadModel>(
                FactoredHeadModel::build(result, head, /*withScores=*/false));
        },
        where);
}

void FactoredView::showFactors(std::shared_ptr<const FactoredHeadModel> model)
{
    head_ = static_cast<int>(model->head);
    model_ = model;
    headBox_->showHeadsOf(result().get());
    product_->setModel(model_);
    spectrum_->showHead(*model_);
    updateStatistics();
    announceTableChanged(product_);
    equivalence_->announceTableChanged();
    fused_->update();
    equivalence_->update();
    if (!model->valid()) {
        scores_.cancel();  // nothing to compute: drop what a previous result asked for
        return;
    }
    scores_.request([model] { return std::make_shared<const FactoredHeadModel>(model->withScoresComputed()); },
                    placementFor(model->scoreWork()));
}

void FactoredView::showScores(std::shared_ptr<const FactoredHeadModel> model)
{
    model_ = std::move(model);  // same factors and spectrum, now with the scores
    product_->setModel(model_);
    equivalence_->update();
    equivalence_->announceTableChanged();
    emit equivalenceReady();
}

void FactoredView::updateStatistics()
{
    if (!model_->valid()) {
        title_->setText(tr("Factored W_i: no result yet"));
        tradeOff_->clear();
        statistics_->clear();
        return;
    }
    const FactoredHeadModel& m = *model_;
    title_->setText(factoredHeadline(m));
    tradeOff_->setText(factoredTradeOff(m));
    statistics_->setText(statisticsText());
}

Index FactoredView::displayedRank() const { return model_ ? model_->numericalRank() : 0; }
Index FactoredView::displayedHeadDimension() const { return model_ ? model_->d_k : 0; }

double FactoredView::displayedFrobeniusNorm() const
{
    return model_ && model_->valid() ? model_->factored->frobeniusNorm() : 0.0;
}

double FactoredView::displayedMaxDifference() const { return model_ ? model_->scores.report.maxAbsDifference : 0.0; }

QString FactoredView::headline() const { return title_->text() + QLatin1Char('\n') + tradeOff_->text(); }

QString FactoredView::statisticsText() const { return model_ ? spectrumStatistics(*model_, true) : QString(); }

QString FactoredView::equivalenceText() const { return model_ ? equivalenceExplanation(*model_) : QString(); }

std::vector<std::pair<Index, Index>> FactoredView::headPartition() const
{
    return model_ ? headColumnPartition(model_->headCount * model_->d_k, model_->headCount)
                  : std::vector<std::pair<Index, Index>>{};
}

std::vector<QRectF> FactoredView::headOutlines() const
{
    if (!model_ || !model_->valid()) {
        return {};
    }
    const QRectF rect = QRectF(fused_->rect()).adjusted(4, 4, -4, -4);
    return fusedLayoutGeometry(rect, QFontMetricsF(fused_->font(), fused_), *model_).outlines;
}

MatrixWindow FactoredView::zoomWindow() const { return product_->window(); }
void FactoredView::setZoomWindow(const MatrixWindow& window) { product_->setWindow(window); }

void FactoredView::renderFigure(QPainter& painter, const QRectF& target) const
{
    // The registry's "factored" figure for this view's model and zoom, black on white.
    painter.save();
    painter.fillRect(target, Qt::white);
    painter.setPen(Qt::black);
    static const FactoredHeadModel empty;
    paintFactoredOverview(painter, target, model_ ? *model_ : empty, product_->window(), FigurePalette{});
    painter.restore();
}

void FactoredView::saveFigureOptions(FigureOptions& options) const
{
    const MatrixWindow zoom = zoomWindow();
    if (result() && zoom.rows < result()->weights->d_model())
        options.productWindow = QRect(static_cast<int>(zoom.col0), static_cast<int>(zoom.row0),
                                      static_cast<int>(zoom.cols), static_cast<int>(zoom.rows));
}

}  // namespace qkv::ui
