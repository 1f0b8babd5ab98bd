#pragma once
// The views beside the controls, one tab each, held through the one view interface
// (ui/views/result_view.hpp): a new result goes to every view, and a view whose tab is in the
// background only marks itself stale and refreshes when its tab is shown. The Train tab comes
// last, after every view.

#include <QTabWidget>

#include <memory>
#include <vector>

#include "core/pipeline/compute.hpp"

namespace qkv::ui {

class HeadSelection;
class HeadsView;
class StepView;
class FactoredView;
class CostsView;
class ResultView;
class TrainTab;
class WholeModelRuns;

class ViewTabs : public QTabWidget {
    Q_OBJECT
public:
    explicit ViewTabs(HeadSelection* selection, QWidget* parent = nullptr);

    // Every view, in tab order.
    const std::vector<ResultView*>& views() const { return views_; }
    // Adds a view as the last tab, titled by the view.
    void addView(ResultView* view);
    // The view whose id() is `id`, or null.
    ResultView* view(const QString& id) const;
    // The Train tab, after every view (it drives training rather than drawing the Result, so it
    // is not among views()); titled and tipped as the views are.
    void addTrainTab(TrainTab* tab);
    TrainTab* trainTab() const { return train_; }

    // The concrete views, for the window's wiring and tests (never for options or menus).
    HeadsView* headsView() const { return heads_; }
    StepView* stepView() const { return steps_; }
    FactoredView* factoredView() const { return factored_; }
    CostsView* costsView() const { return costs_; }
    // The whole model behind the layer shown, shared by the views that draw every layer.
    WholeModelRuns* wholeModelRuns() const { return wholeModel_; }

    // Keeps the selection inside the result's heads and cells, then gives the result to every
    // view; each refreshes once (for both), now if shown, else when its tab is shown.
    void setResult(const std::shared_ptr<const qkv::Result>& result);

signals:
    // A view's own options changed (ResultView::optionsChanged), for every view added.
    void viewOptionsChanged(qkv::ui::ResultView* view);

private:
    HeadSelection* selection_;
    std::vector<ResultView*> views_;
    HeadsView* heads_;
    StepView* steps_;
    FactoredView* factored_;
    CostsView* costs_;
    WholeModelRuns* wholeModel_;
    TrainTab* train_ = nullptr;
};

}  // namespace qkv::ui
