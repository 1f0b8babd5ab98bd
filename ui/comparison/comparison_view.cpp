#include "ui/comparison/comparison_view.hpp"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHorizontalBarSeries>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QPushButton>
#include <QScatterSeries>
#include <QSignalBlocker>
#include <QValueAxis>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>

#include "core/weights/attention_weights.hpp"
#include "ui/comparison/cost_table.hpp"
#include "ui/render/chart_palette.hpp"

namespace qkv::ui {

namespace {

const QColor kFactoredColor(0x21, 0x66, 0xac);  // blue: the thin factors
const QColor kFullColor(0xb2, 0x18, 0x2b);      // red: a full W_i
const QColor kNoBiasColor(0x43, 0x93, 0xc3);
const QColor kBiasColor(0xf4, 0xa5, 0x82);

QChart* newChart(const QString& title)
{
    auto* chart = new QChart();
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setTitle(title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(2, 2, 2, 2));
    return chart;
}

QChartView* newChartView(QChart* chart, QWidget* parent)
{
    auto* view = new QChartView(chart, parent);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumSize(220, 180);
    return view;
}

QBarSet* newBarSet(const QString& name, const QColor& color, QObject* parent)
{
    auto* set = new QBarSet(name, parent);
    set->setColor(color);
    set->setBorderColor(color.darker(120));
    set->setLabelColor(Qt::black);
    return set;
}

// Removes the chart's axes and attaches fresh ones (category labels change with h and g).
void resetAxes(QChart* chart)
{
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
}

double roundedUpperBound(double largest)
{
    if (largest <= 0) {
        return 1.0;
    }
    const double magnitude = std::pow(10.0, std::floor(std::log10(largest)));
    return std::ceil(largest * 1.25 / magnitude) * magnitude;  // room for the value labels
}

QString formatMilliseconds(double ms)
{
    if (ms >= 1.0) {
        return QObject::tr("%1 ms").arg(QString::number(ms, 'f', 2));
    }
    return QObject::tr("%1 µs").arg(QString::number(ms * 1000.0, ms * 1000.0 >= 10.0 ? 'f' : 'g', ms * 1000.0 >= 10.0 ? 1 : 3));
}

}  // namespace

ComparisonView::ComparisonView(QWidget* parent) : QWidget(parent)
{
    summary_ = new QLabel(tr("Cost comparison: no result yet"), this);
    QFont titleFont = summary_->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    summary_->setFont(titleFont);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    keyValueBox_ = new QComboBox(this);
    keyValueBox_->setToolTip(tr("Key/value heads g for grouped-query attention: a divisor of h "
                                "(g = h is standard multi-head attention, g = 1 multi-query)"));
    auto* keyValueLabel = new QLabel(tr("Key/value heads g:"), this);
    keyValueLabel->setBuddy(keyValueBox_);
    copyButton_ = new QPushButton(tr("Copy table"), this);
    copyButton_->setToolTip(tr("Copy the selected rows (or all rows) as tab-separated text"));

    auto* header = new QHBoxLayout();
    header->addWidget(summary_, 1);
    header->addWidget(keyValueLabel);
    header->addWidget(keyValueBox_);
    header->addWidget(copyButton_);

    // 1. Score path per head and per layer.
    QChart* scorePath = newChart(tr("Score-path parameters (g = h)"));
    scorePathSeries_ = new QBarSeries(scorePath);
    scorePathSeries_->append(newBarSet(tr("factored W_i^Q, W_i^K"), kFactoredColor, scorePathSeries_));
    scorePathSeries_->append(newBarSet(tr("full W_i per head"), kFullColor, scorePathSeries_));
    scorePath->addSeries(scorePathSeries_);
    scorePathView_ = newChartView(scorePath, this);

    // 2. Whole-layer parameters of each kind of layer, with and without biases.
    QChart* layer = newChart(tr("Whole-layer parameters (W^Q, W^K, W^V, W^O)"));
    layerSeries_ = new QHorizontalBarSeries(layer);
    layerSeries_->append(newBarSet(tr("without biases"), kNoBiasColor, layerSeries_));
    layerSeries_->append(newBarSet(tr("with biases"), kBiasColor, layerSeries_));
    layer->addSeries(layerSeries_);
    layerView_ = newChartView(layer, this);

    // 3. Totals against h.
    QChart* totals = newChart(tr("Layer parameters against h (divisors of d_model)"));
    const std::vector<std::pair<QString, QColor>> totalSeries = {
        {tr("standard"), QColor(0x1b, 0x9e, 0x77)},
        {tr("MQA (g = 1)"), QColor(0x75, 0x70, 0xb3)},
        {tr("full W_i per head"), kFullColor},
        {tr("unreduced"), QColor(0xd9, 0x5f, 0x02)},
        {tr("score path, factored"), kFactoredColor},
        {tr("score path, full W_i"), QColor(0xe7, 0x29, 0x8a)},
    };
    for (const auto& [name, color] : totalSeries) {
        auto* series = new QLineSeries(totals);
        series->setName(name);
        QPen pen(color);
        pen.setWidthF(2.0);
        if (name.startsWith(tr("score path"))) {
            pen.setStyle(Qt::DashLine);
        }
        series->setPen(pen);
        series->setPointsVisible(true);
        totals->addSeries(series);
        totals_.push_back(series);
    }
    currentHeads_ = new QScatterSeries(totals);
    currentHeads_->setName(tr("current h"));
    currentHeads_->setMarkerSize(12.0);
    currentHeads_->setColor(Qt::transparent);
    currentHeads_->setBorderColor(Qt::black);
    totals->addSeries(currentHeads_);
    totals->legend()->setAlignment(Qt::AlignRight);
    totalsView_ = newChartView(totals, this);

    // 4. FLOPs of one head's scores, both ways.
    QChart* flops = newChart(tr("FLOPs of one head's scores"));
    flopSeries_ = new QHorizontalBarSeries(flops);
    flopSeries_->append(newBarSet(tr("factored"), kFactoredColor, flopSeries_));
    flopSeries_->append(newBarSet(tr("full W_i"), kFullColor, flopSeries_));
    flops->addSeries(flopSeries_);
    flopView_ = newChartView(flops, this);

    for (QAbstractBarSeries* series : {static_cast<QAbstractBarSeries*>(scorePathSeries_),
                                       static_cast<QAbstractBarSeries*>(layerSeries_),
                                       static_cast<QAbstractBarSeries*>(flopSeries_)}) {
        series->setLabelsVisible(true);
        series->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
        series->setLabelsPrecision(12);  // exact integers, not 1.2e+06
    }

    timingLabel_ = new QLabel(this);
    timingLabel_->setWordWrap(true);
    timingLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    table_ = new CostTableWidget(this);

    auto* flopPanel = new QWidget(this);
    auto* flopLayout = new QVBoxLayout(flopPanel);
    flopLayout->setContentsMargins(0, 0, 0, 0);
    flopLayout->addWidget(flopView_, 1);
    flopLayout->addWidget(timingLabel_);

    auto* grid = new QGridLayout();
    grid->addWidget(scorePathView_, 0, 0);
    grid->addWidget(layerView_, 0, 1);
    grid->addWidget(totalsView_, 0, 2);
    grid->addWidget(flopPanel, 1, 0);
    grid->addWidget(table_, 1, 1, 1, 2);
    grid->setColumnStretch(0, 5);
    grid->setColumnStretch(1, 5);
    grid->setColumnStretch(2, 5);
    grid->setRowStretch(0, 1);
    grid->setRowStretch(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addLayout(grid, 1);

    watcher_ = new QFutureWatcher<ScoreTiming>(this);
    connect(watcher_, &QFutureWatcher<ScoreTiming>::finished, this, [this] {
        const ScoreTiming result = watcher_->result();
        if (runningGeneration_ == generation_) {  // stale measurements are dropped
            timing_ = result;
            updateTimingLabel();
            emit timingUpdated();
        }
        if (pending_) {
            pending_ = false;
            measureTiming();
        }
    });
    connect(keyValueBox_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0) {
            setKeyValueHeads(keyValueBox_->itemData(index).toLongLong());
        }
    });
    connect(copyButton_, &QPushButton::clicked, table_, &CostTableWidget::copyToClipboard);
}

ComparisonView::~ComparisonView()
{
    // The worker only reads its own copies; wait so it never outlives the watcher.
    watcher_->waitForFinished();
}

void ComparisonView::setResult(std::shared_ptr<const qkv::Result> result)
{
    result_ = std::move(result);
    const Count previousHeads = heads_;
    if (result_) {
        d_model_ = result_->weights->d_model();
        heads_ = result_->config.headCount;
        n_q_ = result_->queryInput.rows();
        n_k_ = result_->keyValueInput.rows();
        withBias_ = result_->weights->hasBias();
    } else {
        d_model_ = heads_ = n_q_ = n_k_ = 0;
    }
    // Keep g when it still divides h; else standard multi-head (g = h).
    if (heads_ != previousHeads && (keyValueHeads_ < 1 || heads_ % std::max<Count>(keyValueHeads_, 1) != 0)) {
        keyValueHeads_ = heads_;
    }
    if (keyValueHeads_ < 1 || keyValueHeads_ > heads_) {
        keyValueHeads_ = heads_;
    }
    head_ = std::clamp<int>(head_, 0, std::max<int>(0, static_cast<int>(heads_) - 1));
    rebuild();
    measureTiming();
}

void ComparisonView::setSelectedHead(int head)
{
    const int clamped = std::clamp<int>(head, 0, std::max<int>(0, static_cast<int>(heads_) - 1));
    if (clamped == head_) {
        return;
    }
    head_ = clamped;
    measureTiming();
}

void ComparisonView::setKeyValueHeads(Count g)
{
    if (g < 1 || heads_ < 1 || heads_ % g != 0 || g == keyValueHeads_) {
        return;
    }
    keyValueHeads_ = g;
    rebuild();
}

std::vector<Count> ComparisonView::keyValueHeadChoices() const
{
    return heads_ >= 1 ? divisorsOf(heads_) : std::vector<Count>{};
}

LayerShape ComparisonView::shape(HeadLayout layout, Count g, bool withBias) const
{
    LayerShape s;
    s.d_model = d_model_;
    s.heads = heads_;
    s.keyValueHeads = g;
    s.withBias = withBias;
    s.layout = layout;
    return s;
}

void ComparisonView::rebuild()
{
    {
        const QSignalBlocker blocker(keyValueBox_);
        keyValueBox_->clear();
        for (const Count g : keyValueHeadChoices()) {
            const QString kind = g == heads_ ? tr("MHA") : (g == 1 ? tr("MQA") : tr("GQA"));
            keyValueBox_->addItem(tr("%1 (%2)").arg(g).arg(kind), QVariant::fromValue<qlonglong>(g));
            if (g == keyValueHeads_) {
                keyValueBox_->setCurrentIndex(keyValueBox_->count() - 1);
            }
        }
        keyValueBox_->setEnabled(heads_ > 1);
    }
    if (!result_ || d_model_ < 1 || heads_ < 1) {
        summary_->setText(tr("Cost comparison: no result yet"));
        return;
    }
    summary_->setText(tr("d_model = %1, h = %2, d_k = %3, n_q = %4, n_k = %5%6: what two thin matrices per head save")
                          .arg(d_model_)
                          .arg(heads_)
                          .arg(d_model_ / heads_)
                          .arg(n_q_)
                          .arg(n_k_)
                          .arg(withBias_ ? tr(", with biases") : QString()));
    updateScorePathChart();
    updateLayerChart();
    updateTotalsChart();
    updateFlopChart();
    for (QChartView* view : {scorePathView_, layerView_, totalsView_, flopView_})
        applyPaletteToChart(view->chart(), palette());
    updateTable();
    updateTimingLabel();
}

void ComparisonView::updateScorePathChart()
{
    const ScorePathComparison c = compareScorePath(d_model_, heads_, heads_);
    QBarSet* factored = scorePathSeries_->barSets().at(0);
    QBarSet* full = scorePathSeries_->barSets().at(1);
    factored->remove(0, factored->count());
    full->remove(0, full->count());
    factored->append({static_cast<qreal>(c.factored.parametersPerHead), static_cast<qreal>(c.factored.parametersPerLayer)});
    full->append({static_cast<qreal>(c.full.parametersPerHead), static_cast<qreal>(c.full.parametersPerLayer)});

    QChart* chart = scorePathView_->chart();
    resetAxes(chart);
    auto* categories = new QBarCategoryAxis(chart);
    categories->append({tr("per head"), tr("per layer, h = %1").arg(heads_)});
    auto* values = new QValueAxis(chart);
    values->setRange(0, roundedUpperBound(static_cast<double>(c.full.parametersPerLayer)));
    values->setLabelFormat(QStringLiteral("%.3g"));
    values->setTitleText(tr("parameters"));
    chart->addAxis(categories, Qt::AlignBottom);
    chart->addAxis(values, Qt::AlignLeft);
    scorePathSeries_->attachAxis(categories);
    scorePathSeries_->attachAxis(values);
}

void ComparisonView::updateLayerChart()
{
    struct Kind {
        QString name;
        HeadLayout layout;
        Count g;
    };
    // Bottom to top in a horizontal bar chart: list the standard layer last so it is on top.
    const std::vector<Kind> kinds = {
        {tr("GQA (g = %1)").arg(keyValueHeads_), HeadLayout::Factored, keyValueHeads_},
        {tr("MQA (g = 1)"), HeadLayout::Factored, 1},
        {tr("unreduced (d_k = d_model)"), HeadLayout::Unreduced, heads_},
        {tr("full W_i per head"), HeadLayout::FullBilinear, heads_},
        {tr("standard (g = h)"), HeadLayout::Factored, heads_},
    };
    QBarSet* without = layerSeries_->barSets().at(0);
    QBarSet* with = layerSeries_->barSets().at(1);
    without->remove(0, without->count());
    with->remove(0, with->count());
    QStringList names;
    double largest = 0;
    for (const Kind& kind : kinds) {
        const Count a = layerParameterCount(shape(kind.layout, kind.g, false));
        const Count b = layerParameterCount(shape(kind.layout, kind.g, true));
        without->append(static_cast<qreal>(a));
        with->append(static_cast<qreal>(b));
        largest = std::max(largest, static_cast<double>(b));
        names << kind.name;
    }
    QChart* chart = layerView_->chart();
    resetAxes(chart);
    auto* categories = new QBarCategoryAxis(chart);
    categories->append(names);
    auto* values = new QValueAxis(chart);
    values->setRange(0, roundedUpperBound(largest) * 1.15);
    values->setLabelFormat(QStringLiteral("%.2g"));
    values->setTickCount(3);  // a horizontal axis in a third of the window: "7.6e+04" labels need room
    values->setTitleText(tr("parameters"));
    chart->addAxis(categories, Qt::AlignLeft);
    chart->addAxis(values, Qt::AlignBottom);
    layerSeries_->attachAxis(categories);
    layerSeries_->attachAxis(values);
}

void ComparisonView::updateTotalsChart()
{
    const std::vector<HeadCountTotals> totals = totalsOverHeadCounts(d_model_, withBias_);
    std::vector<QList<QPointF>> points(totals_.size());
    double smallest = 0, largest = 1;
    QList<QPointF> current;
    for (const HeadCountTotals& t : totals) {
        const double h = static_cast<double>(t.heads);
        const Count values[] = {t.standard, t.multiQuery, t.fullBilinear, t.unreduced,
                                t.scorePathFactored, t.scorePathFull};
        for (std::size_t i = 0; i < totals_.size(); ++i) {
            const double v = static_cast<double>(values[i]);
            points[i].append(QPointF(h, v));
            smallest = smallest == 0 ? v : std::min(smallest, v);
            largest = std::max(largest, v);
        }
        if (t.heads == heads_) {
            current.append(QPointF(h, static_cast<double>(t.standard)));
        }
    }
    for (std::size_t i = 0; i < totals_.size(); ++i) {
        totals_[i]->replace(points[i]);
    }
    currentHeads_->replace(current);

    QChart* chart = totalsView_->chart();
    resetAxes(chart);
    auto* hAxis = new QLogValueAxis(chart);
    hAxis->setBase(2.0);
    hAxis->setLabelFormat(QStringLiteral("%g"));
    hAxis->setTitleText(tr("h (log scale)"));
    hAxis->setRange(0.8, static_cast<double>(std::max<Count>(d_model_, 2)) * 1.25);
    if (d_model_ > 64) {
        hAxis->setBase(4.0);
    }
    auto* valueAxis = new QLogValueAxis(chart);
    valueAxis->setBase(10.0);
    valueAxis->setLabelFormat(QStringLiteral("%.0e"));
    valueAxis->setTitleText(tr("parameters (log scale)"));
    valueAxis->setRange(std::pow(10.0, std::floor(std::log10(std::max(smallest, 1.0)))),
                        std::pow(10.0, std::ceil(std::log10(largest) + 0.05)));
    chart->addAxis(hAxis, Qt::AlignBottom);
    chart->addAxis(valueAxis, Qt::AlignLeft);
    for (QLineSeries* series : totals_) {
        series->attachAxis(hAxis);
        series->attachAxis(valueAxis);
    }
    currentHeads_->attachAxis(hAxis);
    currentHeads_->attachAxis(valueAxis);
}

void ComparisonView::updateFlopChart()
{
    const Count d_k = d_model_ / heads_;
    const ScoreFlops factored = scoreFlopsFactored(n_q_, n_k_, d_model_, d_k);
    const ScoreFlops full = scoreFlopsFullBilinear(n_q_, n_k_, d_model_);
    QBarSet* a = flopSeries_->barSets().at(0);
    QBarSet* b = flopSeries_->barSets().at(1);
    a->remove(0, a->count());
    b->remove(0, b->count());
    // Bottom-up in a horizontal chart: the total at the bottom, the X_q side on top.
    a->append({static_cast<qreal>(factored.total()), static_cast<qreal>(factored.product),
               static_cast<qreal>(factored.keyProjection), static_cast<qreal>(factored.queryProjection)});
    b->append({static_cast<qreal>(full.total()), static_cast<qreal>(full.product),
               static_cast<qreal>(full.keyProjection), static_cast<qreal>(full.queryProjection)});
    QChart* chart = flopView_->chart();
    chart->setTitle(tr("FLOPs of one head's scores (n_q = %1, n_k = %2)").arg(n_q_).arg(n_k_));
    resetAxes(chart);
    auto* categories = new QBarCategoryAxis(chart);
    categories->append({tr("total"), tr("n_q × n_k product"), tr("X_kv projection"), tr("X_q projection")});
    auto* values = new QValueAxis(chart);
    values->setRange(0, roundedUpperBound(static_cast<double>(std::max(full.total(), factored.total()))) * 1.15);
    values->setLabelFormat(QStringLiteral("%.2g"));
    values->setTickCount(4);
    values->setTitleText(tr("FLOPs (a multiply-add = 2)"));
    chart->addAxis(categories, Qt::AlignLeft);
    chart->addAxis(values, Qt::AlignBottom);
    flopSeries_->attachAxis(categories);
    flopSeries_->attachAxis(values);
}

void ComparisonView::updateTable()
{
    std::vector<CostRow> rows;
    const LayerShape current = shape(HeadLayout::Factored, keyValueHeads_, withBias_);
    Expected<std::vector<CostRow>> table = costTable(current, std::max<Count>(n_q_, 1), std::max<Count>(n_k_, 1));
    if (table) {
        rows = std::move(table).value();
    } else {
        rows.push_back({tr("cost model").toStdString(), table.error(), 0});
    }
    // The whole-layer totals of the bar chart, each with its formula.
    struct Kind {
        const char* name;
        HeadLayout layout;
        Count g;
    };
    const Kind kinds[] = {{"standard (g = h)", HeadLayout::Factored, heads_},
                          {"full W_i per head", HeadLayout::FullBilinear, heads_},
                          {"unreduced (d_k = d_model)", HeadLayout::Unreduced, heads_},
                          {"MQA (g = 1)", HeadLayout::Factored, 1},
                          {"GQA/MHA with the chosen g", HeadLayout::Factored, keyValueHeads_}};
    for (const Kind& kind : kinds) {
        for (const bool bias : {false, true}) {
            const std::vector<CostRow> layer = layerParameterRows(shape(kind.layout, kind.g, bias));
            if (layer.empty()) {
                continue;
            }
            CostRow total = layer.back();  // the "total" row
            total.name = std::string("layer total, ") + kind.name + ", g = " + std::to_string(kind.g) +
                         (bias ? ", with biases" : ", without biases");
            rows.push_back(std::move(total));
        }
    }
    table_->setRows(rows);
}

QString ComparisonView::timingText() const
{
    if (!timing_ || !timing_->valid()) {
        return tr("Measuring both ways on this machine…");
    }
    const ScoreTiming& t = *timing_;
    const double ratio = t.factoredMilliseconds > 0 ? t.fullMilliseconds / t.factoredMilliseconds : 0.0;
    return tr("Measured here (head %1, float, Eigen, one thread; median of %2 samples of %3 runs): factored %4, "
              "full W_i %5, so the full W_i takes %6× as long.")
        .arg(head_ + 1)  // heads count from 1 on screen
        .arg(t.repetitions)
        .arg(t.evaluationsPerSample)
        .arg(formatMilliseconds(t.factoredMilliseconds), formatMilliseconds(t.fullMilliseconds))
        .arg(QString::number(ratio, 'f', 1));
}

void ComparisonView::updateTimingLabel() { timingLabel_->setText(timingText()); }

void ComparisonView::measureTiming()
{
    ++generation_;
    if (!result_ || heads_ < 1 || d_model_ < 1) {
        return;
    }
    if (watcher_->isRunning()) {
        pending_ = true;  // measured when the running one ends; never queued twice
        return;
    }
    const Index d_k = d_model_ / heads_;
    // Copies, so the worker never touches the Result the GUI may drop.
    MatrixF xq = result_->queryInput;
    MatrixF xkv = result_->keyValueInput;
    MatrixF wq = headColumns(result_->weights->queryProjection, head_, d_k);
    MatrixF wk = headColumns(result_->weights->keyProjection, head_, d_k);
    runningGeneration_ = generation_;
    timingLabel_->setText(tr("Measuring both ways on this machine…"));
    watcher_->setFuture(QtConcurrent::run([xq = std::move(xq), xkv = std::move(xkv), wq = std::move(wq),
                                           wk = std::move(wk)] { return timeScoresBothWays(xq, xkv, wq, wk); }));
}

std::vector<double> ComparisonView::barValues(BarChart chart, int setIndex) const
{
    const QAbstractBarSeries* series = chart == BarChart::ScorePath ? static_cast<QAbstractBarSeries*>(scorePathSeries_)
                                       : chart == BarChart::LayerParameters ? static_cast<QAbstractBarSeries*>(layerSeries_)
                                                                            : static_cast<QAbstractBarSeries*>(flopSeries_);
    std::vector<double> values;
    if (setIndex < 0 || setIndex >= series->count()) {
        return values;
    }
    const QBarSet* set = series->barSets().at(setIndex);
    for (int i = 0; i < set->count(); ++i) {
        values.push_back(set->at(i));
    }
    return values;
}

int ComparisonView::barSetCount(BarChart chart) const
{
    return chart == BarChart::ScorePath ? scorePathSeries_->count()
           : chart == BarChart::LayerParameters ? layerSeries_->count()
                                                : flopSeries_->count();
}

QStringList ComparisonView::barCategories(BarChart chart) const
{
    const QChartView* view = chart == BarChart::ScorePath ? scorePathView_
                             : chart == BarChart::LayerParameters ? layerView_
                                                                  : flopView_;
    for (QAbstractAxis* axis : view->chart()->axes()) {
        if (auto* categories = qobject_cast<QBarCategoryAxis*>(axis)) {
            return categories->categories();
        }
    }
    return {};
}

std::vector<QPointF> ComparisonView::totalsSeries(int index) const
{
    if (index < 0 || index >= static_cast<int>(totals_.size())) {
        return {};
    }
    const QList<QPointF> points = totals_[static_cast<std::size_t>(index)]->points();
    return {points.begin(), points.end()};
}

QStringList ComparisonView::totalsSeriesNames() const
{
    QStringList names;
    for (const QLineSeries* series : totals_) {
        names << series->name();
    }
    return names;
}

QString ComparisonView::copyText(bool selectedOnly) const { return table_->copyText(selectedOnly); }

void ComparisonView::renderFigure(QPainter& painter, const QRectF& target) const
{
    if (width() <= 0 || height() <= 0) {
        return;
    }
    painter.save();
    painter.translate(target.topLeft());
    painter.scale(target.width() / width(), target.height() / height());
    // QWidget::render paints the same widgets (charts and table) the screen shows.
    const_cast<ComparisonView*>(this)->render(&painter, QPoint(), QRegion(),
                                              QWidget::DrawWindowBackground | QWidget::DrawChildren);
    painter.restore();
}

}  // namespace qkv::ui
