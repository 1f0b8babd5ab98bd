#pragma once
// The Costs tab: what the factored heads save, for the current d_model, h and
// sentence lengths. Every number comes from core's cost model (core/cost/cost_model.hpp); the
// view never counts anything itself. The only thing it computes is the measured time of the
// two ways of computing one head's scores, off the GUI thread (score_timing_label.hpp).
//
// It composes one part per cost (the charts' models are cost_figures.hpp's, the same
// the exported figures draw):
//   - score-path parameters per head and per layer, factored W_i^Q, W_i^K vs a full W_i;
//   - whole-layer parameters for standard heads, a full W_i per head, unreduced heads,
//     multi-query and grouped-query attention (the key/value-heads control);
//   - the totals against h over the divisors of d_model;
//   - one head's score FLOPs both ways, and their time here (ScoreTimingLabel);
//   - CostTableWidget: the table of exact numbers and formulas, copyable.

#include <QPointF>

#include <memory>
#include <optional>
#include <vector>

#include "core/cost/cost_model.hpp"
#include "core/pipeline/compute.hpp"
#include "ui/costs/cost_figures.hpp"
#include "ui/costs/cost_shape.hpp"
#include "ui/costs/score_timing.hpp"
#include "ui/views/result_view.hpp"

class QComboBox;
class QLabel;
class QLayout;

namespace qkv::ui {

class CostChart;
class CostTableWidget;
class ScoreTimingLabel;

// Follows the selected head (the one timed).
class CostsView : public ResultView {
    Q_OBJECT
public:
    explicit CostsView(HeadSelection* selection = nullptr, QWidget* parent = nullptr);
    ~CostsView() override;

    // The tab a session names and its figures' view (ResultView::id()).
    static constexpr QLatin1String kId = kCostsViewId;
    QString title() const override;
    QString summary() const override;
    QString id() const override { return kId; }

    // Selects `head` for every view that shares the selection; the view times it.
    void setSelectedHead(int head);
    // The head whose W_i^Q, W_i^K are timed (the selection's, clamped to h).
    int selectedHead() const { return head_; }

    // g: key/value heads, a divisor of h. The layer's g (result()->config.g()) for each new
    // result: there is one g, the layer's. setKeyValueHeads() shows another g at
    // once and asks for it through keyValueHeadsChosen(); the window sets the layer's g, whose
    // result then arrives with it.
    Count keyValueHeads() const { return shape_.keyValueHeads; }
    // The g shown, for an export of the comparison figures.
    void saveFigureOptions(FigureOptions& options) const override;
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

    std::optional<ScoreTiming> lastTiming() const;
    QString timingText() const;
    // Starts a new measurement now (also done for every new result or head).
    void measureTiming();

    // The four charts (the registry's "comparison" figure, with this view's g) onto any paint
    // device, black on white.
    void renderFigure(QPainter& painter, const QRectF& target) const;

    QSize sizeHint() const override { return {1400, 900}; }

signals:
    void timingUpdated();
    // The user chose g in the view's box (or setKeyValueHeads was called).
    void keyValueHeadsChosen(qkv::Count g);

protected:
    void refresh(Changes changes) override;

private:
    QLayout* makeHeader();
    QWidget* makeGrid();
    void takeShape();  // from result(), g included
    void redraw();     // header, charts and table for shape_
    const CostChart* barChart(BarChart chart) const;

    CostShape shape_;
    int head_ = 0;

    QLabel* summary_;
    QComboBox* keyValueBox_;
    CostChart* scorePath_;
    CostChart* layer_;
    CostChart* totals_;
    CostChart* flops_;
    ScoreTimingLabel* timing_;
    CostTableWidget* table_;
};

}  // namespace qkv::ui
