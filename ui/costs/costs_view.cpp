#include "ui/costs/costs_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include <algorithm>

#include "core/weights/attention_weights.hpp"
#include "ui/costs/cost_chart.hpp"
#include "ui/costs/cost_figures.hpp"
#include "ui/costs/cost_table.hpp"
#include "ui/costs/score_timing_label.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figure_widgets/figure_grid.hpp"
#include "ui/figures/figure.hpp"

namespace qkv::ui {

CostsView::CostsView(HeadSelection* selection, QWidget* parent)
    : ResultView(selection, Change::Head, parent), summary_(new QLabel(tr("Cost comparison: no result yet"), this)),
      keyValueBox_(new QComboBox(this)), scorePath_(new CostChart(&scorePathChart, this)),
      layer_(new CostChart(&layerParametersChart, this)), totals_(new CostChart(&totalsChart, this)),
      flops_(new CostChart(&scoreFlopChart, this)), timing_(new ScoreTimingLabel(this)),
      table_(new CostTableWidget(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(makeHeader());
    layout->addWidget(makeGrid(), 1);
    connect(timing_, &ScoreTimingLabel::timingUpdated, this, &CostsView::timingUpdated);
}

CostsView::~CostsView() = default;

QLayout* CostsView::makeHeader()
{
    QFont titleFont = summary_->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    summary_->setFont(titleFont);
    summary_->setWordWrap(true);  // whole at any width
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    keyValueBox_->setToolTip(
        tr("The layer's key/value heads g (also under h in the controls): a divisor of h "
           "(g = h is standard multi-head attention, g = 1 multi-query)"));
    keyValueBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);  // "12 (MHA)" whole
    auto* keyValueLabel = new QLabel(tr("Key/value heads g:"), this);
    keyValueLabel->setBuddy(keyValueBox_);
    auto* copyButton = new QPushButton(tr("Copy table"), this);
    copyButton->setToolTip(tr("Copy the selected rows (or all rows) as tab-separated text"));
    connect(keyValueBox_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0) {
            setKeyValueHeads(keyValueBox_->itemData(index).toLongLong());
        }
    });
    connect(copyButton, &QPushButton::clicked, table_, &CostTableWidget::copyToClipboard);

    auto* header = new QHBoxLayout();
    header->addWidget(summary_, 1);
    header->addWidget(keyValueLabel);
    header->addWidget(keyValueBox_);
    header->addWidget(copyButton);
    return header;
}

QWidget* CostsView::makeGrid()
{
    auto* flopPanel = new QWidget(this);
    auto* flopLayout = new QVBoxLayout(flopPanel);
    flopLayout->setContentsMargins(0, 0, 0, 0);
    flopLayout->addWidget(flops_, 1);
    flopLayout->addWidget(timing_);
    timing_->setWordWrap(true);

    // As many columns as fit at a readable size (at most three), scrolling below that: the
    // charts are never squashed.
    auto* grid = new FigureGrid(QSize(420, 330), 3);
    grid->addWidget(scorePath_);
    grid->addWidget(layer_);
    grid->addWidget(totals_);
    grid->addWidget(flopPanel);
    grid->addWidget(table_, 2);
    auto* scroll = new QScrollArea(this);
    scroll->setAccessibleName(tr("Cost charts and table"));
    scroll->setWidget(grid);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    return scroll;
}

QString CostsView::title() const { return tr("&Costs"); }
QString CostsView::summary() const { return tr("Cost comparison: parameters and multiply-adds of the factored and fused forms, against h and d_model"); }

void CostsView::setSelectedHead(int head) { selection()->setHead(head); }

void CostsView::saveFigureOptions(FigureOptions& options) const { options.keyValueHeads = keyValueHeads(); }

void CostsView::refresh(Changes changes)
{
    if (changes.testFlag(Change::Result)) {
        takeShape();
    }
    if (changes & (Change::Result | Change::Options)) {
        redraw();
    }
    const int head = std::clamp<int>(selection()->head(), 0, std::max<int>(0, static_cast<int>(shape_.heads) - 1));
    if (changes.testFlag(Change::Result) || head != head_) {
        head_ = head;
        measureTiming();
    }
}

void CostsView::takeShape()
{
    const std::shared_ptr<const Result>& r = result();
    shape_ = r ? costShape(*r, r->config.g()) : CostShape{};  // the layer's g
}

void CostsView::setKeyValueHeads(Count g)
{
    const Count heads = result() ? result()->config.headCount : 0;  // the shape refresh() will take
    if (g < 1 || heads < 1 || heads % g != 0 || g == shape_.keyValueHeads) {
        return;
    }
    shape_.keyValueHeads = g;
    invalidate();
    emit keyValueHeadsChosen(g);
}

std::vector<Count> CostsView::keyValueHeadChoices() const
{
    return shape_.heads >= 1 ? divisorsOf(shape_.heads) : std::vector<Count>{};
}

void CostsView::redraw()
{
    {
        const QSignalBlocker blocker(keyValueBox_);
        keyValueBox_->clear();
        for (const Count g : keyValueHeadChoices()) {
            const QString kind = g == shape_.heads ? tr("MHA") : (g == 1 ? tr("MQA") : tr("GQA"));
            keyValueBox_->addItem(tr("%1 (%2)").arg(g).arg(kind), QVariant::fromValue<qlonglong>(g));
            if (g == shape_.keyValueHeads) {
                keyValueBox_->setCurrentIndex(keyValueBox_->count() - 1);
            }
        }
        keyValueBox_->setEnabled(shape_.heads > 1);
    }
    if (!result() || !shape_.valid()) {
        summary_->setText(tr("Cost comparison: no result yet"));
        return;
    }
    summary_->setText(costSummary(shape_));
    for (CostChart* chart : {scorePath_, layer_, totals_, flops_}) chart->setShape(shape_);
    table_->setShape(shape_);
    timing_->setText(timing_->timingText());
}

void CostsView::measureTiming() { timing_->measure(shape_.valid() ? result() : nullptr, head_); }

std::optional<ScoreTiming> CostsView::lastTiming() const { return timing_->lastTiming(); }

QString CostsView::timingText() const { return timing_->timingText(); }

const CostChart* CostsView::barChart(BarChart chart) const
{
    switch (chart) {
    case BarChart::ScorePath: return scorePath_;
    case BarChart::LayerParameters: return layer_;
    case BarChart::ScoreFlops: return flops_;
    }
    return scorePath_;
}

std::vector<double> CostsView::barValues(BarChart chart, int setIndex) const
{
    return barChart(chart)->barValues(setIndex);
}

QStringList CostsView::barCategories(BarChart chart) const { return barChart(chart)->barCategories(); }

int CostsView::barSetCount(BarChart chart) const { return barChart(chart)->barSetCount(); }

std::vector<QPointF> CostsView::totalsSeries(int index) const { return totals_->linePoints(index); }

QStringList CostsView::totalsSeriesNames() const { return totals_->lineNames(); }

QString CostsView::copyText(bool selectedOnly) const { return table_->copyText(selectedOnly); }

void CostsView::renderFigure(QPainter& painter, const QRectF& target) const
{
    if (!shape_.valid()) return;
    painter.save();
    painter.fillRect(target, Qt::white);
    paintCostsOverview(painter, target.adjusted(8, 8, -8, -8), shape_,
                            ChartStyle{Qt::black, Qt::white, painter.font()});
    painter.restore();
}

}  // namespace qkv::ui
