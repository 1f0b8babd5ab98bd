#pragma once
// The rollout half of the Predictions tab: "Stop after layer" over the self-attention layers the
// rollout follows (named as --list-layers names them; the last by default) and the rollout
// figure (prediction_figures.hpp) drawn on screen. The rollout is recomputed (core's
// modelRollout, 2 n^3 multiply-adds per layer) through a LatestTask: inline while it is small,
// else off the GUI thread (work_placement.hpp).

#include <QWidget>

#include <memory>

#include "core/pipeline/model_overview.hpp"
#include "ui/background/latest_task.hpp"
#include "ui/predict/prediction_figures.hpp"

class QComboBox;

namespace qkv::ui {

class FigureCanvas;

class RolloutPanel : public QWidget {
    Q_OBJECT
public:
    explicit RolloutPanel(QWidget* parent = nullptr);

    // A new overview (null: nothing to show): the stop stays where it was when it still exists.
    void setOverview(std::shared_ptr<const qkv::ModelOverview> overview);
    // The rollout stops after rolloutLayers()[stop].
    void setStop(qkv::Index stop);
    qkv::Index stop() const { return stop_; }
    // How many layers the rollout can stop after.
    qkv::Index stopCount() const;
    // What the canvas draws (its rollout is empty while none is computed).
    const RolloutPicture& picture() const { return picture_; }
    bool isBusy() const { return build_.isBusy(); }
    QComboBox* stopBox() const { return stopBox_; }
    FigureCanvas* canvas() const { return canvas_; }

signals:
    // A new picture is shown.
    void pictureChanged();
    void stopChanged(qkv::Index stop);

private:
    void recompute();
    void show(RolloutPicture picture);

    std::shared_ptr<const qkv::ModelOverview> overview_;
    qkv::Index stop_ = -1;
    RolloutPicture picture_;
    QComboBox* stopBox_;
    FigureCanvas* canvas_;
    // Declared last: its destructor waits for a running computation, which reads nothing of this.
    LatestTask<RolloutPicture> build_{[this](RolloutPicture picture) { show(std::move(picture)); }};
};

}  // namespace qkv::ui
