#include "ui/mainwindow/view_tabs.hpp"

#include "ui/document/head_selection.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/steps/step_view.hpp"

#include "ui/comparison/comparison_view.hpp"
#include "ui/factored/factored_view.hpp"

namespace qkv::ui {

ViewTabs::ViewTabs(HeadSelection* selection, QWidget* parent)
    : QTabWidget(parent), heads_(new HeadsView(selection, this)), steps_(new StepView(selection, this))
{
    setDocumentMode(true);
    addTab(heads_, tr("&Heads"));
    addTab(steps_, tr("&Step by step"));
    factored_ = new FactoredView(this);
    factored_->setSelectedHead(selection->head());
    connect(selection, &HeadSelection::headChanged, factored_, &FactoredView::setSelectedHead);
    // The factored view's own head box selects the head for every view.
    connect(factored_, &FactoredView::selectedHeadChanged, selection, &HeadSelection::setHead);
    addTab(factored_, tr("&Factored W_i"));
    comparison_ = new ComparisonView(this);
    comparison_->setSelectedHead(selection->head());
    connect(selection, &HeadSelection::headChanged, comparison_, &ComparisonView::setSelectedHead);
    addTab(comparison_, tr("&Comparison"));
    connect(this, &QTabWidget::currentChanged, this, &ViewTabs::updateView);
}

void ViewTabs::setResult(const std::shared_ptr<const qkv::Result>& result)
{
    result_ = result;
    // Heads (also what File > Export draws) and the cheap step view are always current.
    heads_->setResult(result_);
    steps_->setResult(result_);
    stale_.assign(static_cast<std::size_t>(count()), true);
    stale_[static_cast<std::size_t>(indexOf(heads_))] = false;
    stale_[static_cast<std::size_t>(indexOf(steps_))] = false;
    updateView(currentIndex());
}

void ViewTabs::updateView(int index)
{
    if (!result_ || index < 0 || index >= static_cast<int>(stale_.size()) || !stale_[static_cast<std::size_t>(index)])
        return;
    stale_[static_cast<std::size_t>(index)] = false;
    QWidget* view = widget(index);
    if (view == heads_) heads_->setResult(result_);
    else if (view == steps_) steps_->setResult(result_);
    else if (view == factored_) factored_->setResult(result_);
    else if (view == comparison_) comparison_->setResult(result_);
}

}  // namespace qkv::ui
