#pragma once
// The views beside the controls: Heads, Step by step, Factored W_i, Comparison. The last two
// are another module's widgets, hosted when present (placeholders otherwise).

#include <QTabWidget>

#include <memory>
#include <vector>

#include "core/pipeline/compute.hpp"

namespace qkv::ui {

class HeadSelection;
class HeadsView;
class StepView;
class FactoredView;
class ComparisonView;

class ViewTabs : public QTabWidget {
    Q_OBJECT
public:
    explicit ViewTabs(HeadSelection* selection, QWidget* parent = nullptr);

    HeadsView* headsView() const { return heads_; }
    StepView* stepView() const { return steps_; }
    FactoredView* factoredView() const { return factored_; }
    ComparisonView* comparisonView() const { return comparison_; }

    // Heads and step views update at once; the factored and comparison views (heavier) update
    // when their tab is shown, so a change never pays for views nobody looks at.
    void setResult(const std::shared_ptr<const qkv::Result>& result);

private:
    void updateView(int index);
    std::shared_ptr<const qkv::Result> result_;
    std::vector<bool> stale_;
    HeadsView* heads_;
    StepView* steps_;
    FactoredView* factored_ = nullptr;
    ComparisonView* comparison_ = nullptr;
};

}  // namespace qkv::ui
