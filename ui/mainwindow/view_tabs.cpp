#include "ui/mainwindow/view_tabs.hpp"

#include <QLabel>

#include "ui/document/head_selection.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/steps/step_view.hpp"

#if __has_include("ui/factored/factored_view.hpp")
#include "ui/factored/factored_view.hpp"
#define QKV_HAVE_FACTORED_VIEW 1
#endif
#if __has_include("ui/comparison/comparison_view.hpp")
#include "ui/comparison/comparison_view.hpp"
#define QKV_HAVE_COMPARISON_VIEW 1
#endif

namespace qkv::ui {
namespace {

QWidget* placeholder(const QString& text, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    label->setAlignment(Qt::AlignCenter);
    label->setWordWrap(true);
    label->setForegroundRole(QPalette::PlaceholderText);
    return label;
}

}  // namespace

ViewTabs::ViewTabs(HeadSelection* selection, QWidget* parent)
    : QTabWidget(parent), heads_(new HeadsView(selection, this)), steps_(new StepView(selection, this))
{
    setDocumentMode(true);
    addTab(heads_, tr("&Heads"));
    addTab(steps_, tr("&Step by step"));
#ifdef QKV_HAVE_FACTORED_VIEW
    auto* factored = new FactoredView(this);
    factored->setSelectedHead(selection->head());
    connect(selection, &HeadSelection::headChanged, factored, &FactoredView::setSelectedHead);
    factored_ = factored;
#else
    factored_ = placeholder(tr("The factored W_i view is not part of this build."), this);
#endif
    addTab(factored_, tr("&Factored W_i"));
#ifdef QKV_HAVE_COMPARISON_VIEW
    auto* comparison = new ComparisonView(this);
    comparison->setSelectedHead(selection->head());
    connect(selection, &HeadSelection::headChanged, comparison, &ComparisonView::setSelectedHead);
    comparison_ = comparison;
#else
    comparison_ = placeholder(tr("The parameter and cost comparison is not part of this build."), this);
#endif
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
#ifdef QKV_HAVE_FACTORED_VIEW
    else if (view == factored_) static_cast<FactoredView*>(factored_)->setResult(result_);
#endif
#ifdef QKV_HAVE_COMPARISON_VIEW
    else if (view == comparison_) static_cast<ComparisonView*>(comparison_)->setResult(result_);
#endif
}

}  // namespace qkv::ui
