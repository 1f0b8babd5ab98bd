#pragma once
// The Predict tab's Logit lens page (core/pipeline/logit_lens.hpp): what the model would
// predict if it stopped after each layer, at every position of the clean prompt. A positions x
// layers grid, each cell its top token as text and that token's probability as colour (hover:
// the top 5), and the answer token's probability at the last position per layer as a line.
// Computed off the GUI thread (the softmax over the vocabulary per cell).

#include <QWidget>

#include <memory>

#include "core/pipeline/model_overview.hpp"
#include "ui/background/latest_task.hpp"
#include "ui/patching/patching_data.hpp"

class QLabel;

namespace qkv::ui {

class ChartView;
class PatchGridCanvas;
struct ChartModel;

class LogitLensPanel : public QWidget {
    Q_OBJECT
public:
    explicit LogitLensPanel(QWidget* parent = nullptr);

    void setOverview(std::shared_ptr<const qkv::ModelOverview> overview);
    // The token whose probability the line follows (-1: the run's top-1 at the last position).
    void setAnswer(std::int32_t answer);
    bool isComputing() const { return task_.isBusy(); }

    const std::shared_ptr<const LogitLensShown>& lens() const { return lens_; }
    PatchGridCanvas* gridCanvas() const { return grid_; }
    ChartView* chartView() const { return chart_; }
    QLabel* statusLabel() const { return status_; }

signals:
    void lensShown();

protected:
    // A new sentence arrived while the page was hidden: read it now.
    void showEvent(QShowEvent* event) override;

private:
    void request();
    void deliver(qkv::Expected<LogitLensShown> lens);
    QString toolTipAt(const QPointF& position) const;

    std::shared_ptr<const qkv::ModelOverview> overview_;
    std::int32_t answer_ = -1;
    bool pending_ = false;  // deferred while hidden (hidden views defer their work)
    std::shared_ptr<const LogitLensShown> lens_;
    QLabel* status_;
    PatchGridCanvas* grid_;
    ChartView* chart_;
    LatestTask<qkv::Expected<LogitLensShown>> task_{
        [this](qkv::Expected<LogitLensShown> lens) { deliver(std::move(lens)); }};
};

// The line of the answer's probability per layer, as the page and its figure draw it.
ChartModel answerProbabilityChart(const LogitLensShown& lens);

}  // namespace qkv::ui
