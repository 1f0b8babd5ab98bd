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
}

void ViewTabs::setResult(const std::shared_ptr<const qkv::Result>& result)
{
    heads_->setResult(result);
    steps_->setResult(result);
#ifdef QKV_HAVE_FACTORED_VIEW
    static_cast<FactoredView*>(factored_)->setResult(result);
#endif
#ifdef QKV_HAVE_COMPARISON_VIEW
    static_cast<ComparisonView*>(comparison_)->setResult(result);
#endif
}

}  // namespace qkv::ui
