#include "ui/mainwindow/view_tabs.hpp"

#include <QProxyStyle>
#include <QTabBar>

#include "ui/circuits/circuits_view.hpp"
#include "ui/compare/compare_view.hpp"
#include "ui/costs/costs_view.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/factored/factored_view.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/matrices/matrices_view.hpp"
#include "ui/modelgrid/model_grid_view.hpp"
#include "ui/predict/prediction_view.hpp"
#include "ui/qkmap/qk_map_view.hpp"
#include "ui/steps/step_view.hpp"
#include "ui/train/train_tab.hpp"
#include "ui/views/result_view.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"

namespace qkv::ui {
namespace {

// Tabs 6 pixels wider than their titles (the common styles' 24): every tab shows at the smallest
// window (1000 x 700) with the three whole-model tabs (Model, Predict, Circuits) too.
class CompactTabStyle : public QProxyStyle {
public:
    int pixelMetric(PixelMetric metric, const QStyleOption* option, const QWidget* widget) const override
    {
        if (metric == PM_TabBarTabHSpace) return 6;
        return QProxyStyle::pixelMetric(metric, option, widget);
    }
};

}  // namespace

ViewTabs::ViewTabs(HeadSelection* selection, QWidget* parent)
    : QTabWidget(parent), selection_(selection), heads_(new HeadsView(selection, this)),
      steps_(new StepView(selection, this)), factored_(new FactoredView(selection, this)),
      costs_(new CostsView(selection, this)), wholeModel_(new WholeModelRuns(this))
{
    setDocumentMode(true);
    auto* compact = new CompactTabStyle;
    compact->setParent(this);
    tabBar()->setStyle(compact);
    for (ResultView* view : {static_cast<ResultView*>(heads_), static_cast<ResultView*>(steps_),
                             static_cast<ResultView*>(factored_), static_cast<ResultView*>(costs_)}) {
        addView(view);
    }
    addView(new MatricesView(selection, this));
    addView(new QkMapView(selection, this));
    addView(new CompareView(selection, this));
    addView(new ModelGridView(selection, wholeModel_, this));
    addView(new PredictionView(selection, wholeModel_, this));
    addView(new CircuitsView(selection, wholeModel_, this));
}

void ViewTabs::addView(ResultView* view)
{
    views_.push_back(view);
    // Views come first: their index in views() is their tab's (the window's sync relies on it).
    setTabToolTip(insertTab(static_cast<int>(views_.size()) - 1, view, view->title()), view->summary());
    connect(view, &ResultView::optionsChanged, this, [this, view] { emit viewOptionsChanged(view); });
}

void ViewTabs::addTrainTab(TrainTab* tab)
{
    train_ = tab;
    setTabToolTip(addTab(tab, TrainTab::title()), TrainTab::summary());
}

ResultView* ViewTabs::view(const QString& id) const
{
    for (ResultView* view : views_)
        if (view->id() == id) return view;
    return nullptr;
}

void ViewTabs::setResult(const std::shared_ptr<const qkv::Result>& result)
{
    // Held, so that a view refreshes once for the clamp and the result, never for the clamp
    // against the old result.
    wholeModel_->setResult(result);
    for (ResultView* view : views_) view->beginUpdate();
    if (result) {
        const qkv::AttentionResult& a = result->attention;
        selection_->clampTo(static_cast<int>(a.headCount()), static_cast<int>(a.queryCount()),
                            static_cast<int>(a.keyCount()));
    }
    for (ResultView* view : views_) view->setResult(result);
    for (ResultView* view : views_) view->endUpdate();
}

}  // namespace qkv::ui
