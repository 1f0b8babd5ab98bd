#pragma once
// The predictions half of the Predictions tab: the position chooser ("after «d»" for a causal LM,
// each [MASK] for a masked LM), the top 5 tokens there with every head on beside those with the
// switched-off heads off (a horizontal bar chart, the "predictions" figure's chart), which heads
// are off ("3.2, 0.1", as --ablate writes them) with "Switch all back on", or how to switch one
// off when none is.

#include <QWidget>

#include <memory>

#include "core/pipeline/model_overview.hpp"
#include "ui/predict/prediction_data.hpp"

class QComboBox;
class QLabel;
class QPushButton;

namespace qkv::ui {

class ChartView;
class WholeModelRuns;

class PredictionPanel : public QWidget {
    Q_OBJECT
public:
    explicit PredictionPanel(WholeModelRuns* runs, QWidget* parent = nullptr);

    // A new overview (null: nothing to show); `names` name its model's tokens. The position stays
    // when the overview still predicts there.
    void setOverview(std::shared_ptr<const qkv::ModelOverview> overview,
                     std::shared_ptr<const PredictedTokenNames> names);
    // Shows the prediction at `position` (ignored when the overview does not predict there).
    void setPosition(qkv::Index position);
    qkv::Index position() const { return position_; }
    // What the chart shows; no rows when there is no prediction.
    const PredictionComparison& comparison() const { return comparison_; }

    QComboBox* positionBox() const { return positionBox_; }
    ChartView* chart() const { return chart_; }
    QLabel* headsOffLabel() const { return headsOffLabel_; }
    QPushButton* switchOnButton() const { return switchOnButton_; }

signals:
    void positionChanged(qkv::Index position);

private:
    void fillPositions();
    void showComparison();

    WholeModelRuns* runs_;
    std::shared_ptr<const qkv::ModelOverview> overview_;
    std::shared_ptr<const PredictedTokenNames> names_;
    qkv::Index position_ = -1;
    PredictionComparison comparison_;
    QComboBox* positionBox_;
    QLabel* problem_;
    ChartView* chart_;
    QLabel* headsOffLabel_;
    QPushButton* switchOnButton_;
};

}  // namespace qkv::ui
