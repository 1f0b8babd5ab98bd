#pragma once
// The comparison view (issue 4): what the factored heads save, for the current d_model, h and
// sentence lengths. Every number comes from core's cost model (core/cost/cost_model.hpp); the
// view never counts anything itself. The only thing it computes is the measured time of the
// two ways of computing one head's scores, off the GUI thread (score_timing.hpp).
//
//   - score-path parameters per head and per layer, factored W_i^Q, W_i^K vs a full W_i;
//   - whole-layer parameters (W^Q, W^K, W^V, W^O with and without biases) for standard heads,
//     a full W_i per head, unreduced heads (d_k = d_model), multi-query and grouped-query
//     attention with a key/value-heads control;
//   - the totals against h over the divisors of d_model;
//   - the FLOPs of one head's scores both ways, and their measured time here;
//   - the table of exact numbers and formulas, copyable.

#include <QWidget>

#include <QFutureWatcher>

#include <memory>
#include <optional>
#include <vector>

#include "core/cost/cost_model.hpp"
#include "core/pipeline/compute.hpp"
#include "ui/comparison/score_timing.hpp"

class QBarSeries;
class QChart;
class QChartView;
class QComboBox;
class QHorizontalBarSeries;
class QLabel;
class QLineSeries;
class QLogValueAxis;
class QPushButton;
class QScatterSeries;

namespace qkv::ui {

class CostTableWidget;

class ComparisonView : public QWidget {
    Q_OBJECT
public:
    explicit ComparisonView(QWidget* parent = nullptr);
    ~ComparisonView() override;

    void setResult(std::shared_ptr<const qkv::Result> result);
    // The head whose W_i^Q, W_i^K are timed.
    void setSelectedHead(int head);
    int selectedHead() const { return head_; }

    // g: key/value heads, a divisor of h (h by default: standard multi-head attention).
    Count keyValueHeads() const { return keyValueHeads_; }
    void setKeyValueHeads(Count g);
    std::vector<Count> keyValueHeadChoices() const;

    // The charts' values, read from their series (tests compare them with the cost model),
    // in the order of barCategories() (horizontal charts list their categories bottom-up).
    enum class BarChart { ScorePath, LayerParameters, ScoreFlops };
    std::vector<double> barValues(BarChart chart, int setIndex) const;
    QStringList barCategories(BarChart chart) const;
    int barSetCount(BarChart chart) const;
    // Totals against h: one series per layout (standard, MQA, full W_i, unreduced, score path
    // factored, score path full), points (h, total).
    std::vector<QPointF> totalsSeries(int index) const;
    QStringList totalsSeriesNames() const;

    CostTableWidget* table() const { return table_; }
    QString copyText(bool selectedOnly = false) const;

    std::optional<ScoreTiming> lastTiming() const { return timing_; }
    QString timingText() const;
    // Starts a new measurement now (also done on every setResult / setSelectedHead).
    void measureTiming();

    // The whole view (charts, table) onto any paint device, scaled to `target`.
    void renderFigure(QPainter& painter, const QRectF& target) const;

    QSize sizeHint() const override { return {1400, 900}; }

signals:
    void timingUpdated();

private:
    void rebuild();
    void updateScorePathChart();
    void updateLayerChart();
    void updateTotalsChart();
    void updateFlopChart();
    void updateTable();
    void updateTimingLabel();
    LayerShape shape(HeadLayout layout, Count g, bool withBias) const;

    std::shared_ptr<const Result> result_;
    int head_ = 0;
    Count d_model_ = 0, heads_ = 0, keyValueHeads_ = 0, n_q_ = 0, n_k_ = 0;
    bool withBias_ = false;

    QLabel* summary_ = nullptr;
    QComboBox* keyValueBox_ = nullptr;
    QPushButton* copyButton_ = nullptr;
    QChartView* scorePathView_ = nullptr;
    QChartView* layerView_ = nullptr;
    QChartView* totalsView_ = nullptr;
    QChartView* flopView_ = nullptr;
    QBarSeries* scorePathSeries_ = nullptr;
    QHorizontalBarSeries* layerSeries_ = nullptr;
    QHorizontalBarSeries* flopSeries_ = nullptr;
    std::vector<QLineSeries*> totals_;
    QScatterSeries* currentHeads_ = nullptr;
    QLabel* timingLabel_ = nullptr;
    CostTableWidget* table_ = nullptr;

    QFutureWatcher<ScoreTiming>* watcher_ = nullptr;
    quint64 generation_ = 0;          // bumped by every request
    quint64 runningGeneration_ = 0;   // the request being measured
    bool pending_ = false;            // a newer request waits for the running one
    std::optional<ScoreTiming> timing_;
};

}  // namespace qkv::ui
