// The view interface (ui/views/result_view.hpp): a view refreshes at once while it is shown,
// only marks itself stale while hidden (a tab in the background), and refreshes once, for
// every change meanwhile, when it is shown.

#include <QLabel>
#include <QTabWidget>

#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "tests/ui/factored/factored_test_support.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figure_registry/figure_registry.hpp"
#include "ui/views/result_view.hpp"

namespace qkv::ui {
namespace {

using Change = ResultView::Change;
using Changes = ResultView::Changes;

// Records every refresh and what it saw.
class CountingView : public ResultView {
public:
    explicit CountingView(HeadSelection* selection = nullptr, Changes follows = Change::Head)
        : ResultView(selection, follows)
    {}
    QString title() const override { return QStringLiteral("&Counting"); }
    QString summary() const override { return QStringLiteral("Counts its refreshes"); }
    QString id() const override { return QStringLiteral("counting"); }
    using ResultView::invalidate;

    std::vector<Changes> refreshes;
    std::shared_ptr<const Result> seenResult;
    int seenHead = -1;

protected:
    void refresh(Changes changes) override
    {
        refreshes.push_back(changes);
        seenResult = result();
        seenHead = selection()->head();
    }
};

std::shared_ptr<const Result> someResult(Index heads = 4)
{
    return qkv::testing::computeOrFail(qkv::testing::exampleConfig(64, heads));
}

TEST(ResultView, AViewOnItsOwnRefreshesAtOnce)
{
    CountingView view;  // never shown: it is its own window, as in a test or an export
    const auto result = someResult();
    view.setResult(result);
    ASSERT_EQ(view.refreshes.size(), 1u);
    EXPECT_EQ(view.refreshes[0], Changes(Change::Result));
    EXPECT_EQ(view.seenResult, result);
    EXPECT_FALSE(view.isStale());
    EXPECT_TRUE(figureNamesOfView(view.id()).isEmpty());
}

// Two views as tabs of a shown window, sharing one selection.
struct Tabs {
    HeadSelection selection;
    QTabWidget tabs;
    CountingView* first = new CountingView(&selection);
    CountingView* second = new CountingView(&selection);
    Tabs()
    {
        tabs.addTab(first, first->title());
        tabs.addTab(second, second->title());
        tabs.resize(400, 300);
    }
};

TEST(ResultView, AHiddenTabDoesNoWorkUntilShownThenRefreshesOnce)
{
    Tabs t;
    t.tabs.show();
    const auto older = someResult(4), newer = someResult(8);
    t.first->setResult(older);
    t.second->setResult(older);
    t.selection.setHead(1);
    t.second->setResult(newer);
    t.first->setResult(newer);
    EXPECT_EQ(t.first->refreshes.size(), 3u);  // shown: every change at once
    EXPECT_TRUE(t.second->refreshes.empty());  // hidden: nothing, only stale
    EXPECT_TRUE(t.second->isStale());

    t.tabs.setCurrentIndex(1);
    ASSERT_EQ(t.second->refreshes.size(), 1u);
    EXPECT_EQ(t.second->refreshes[0], Change::Result | Change::Head);
    EXPECT_EQ(t.second->seenResult, newer);
    EXPECT_EQ(t.second->seenHead, 1);
    EXPECT_FALSE(t.second->isStale());

    // Back to the first tab: the first was current, nothing to do; the second now waits.
    const std::size_t firstBefore = t.first->refreshes.size();
    t.tabs.setCurrentIndex(0);
    EXPECT_EQ(t.first->refreshes.size(), firstBefore);
    t.selection.setHead(2);
    EXPECT_EQ(t.second->refreshes.size(), 1u);
    EXPECT_EQ(t.first->refreshes.size(), firstBefore + 1);
}

TEST(ResultView, InAWindowNotYetShownOnlyTheCurrentTabWorks)
{
    Tabs t;  // never shown, as the main window while it is being built
    t.first->setResult(someResult());
    t.second->setResult(someResult());
    EXPECT_EQ(t.first->refreshes.size(), 1u);
    EXPECT_TRUE(t.second->refreshes.empty());
    t.tabs.setCurrentIndex(1);  // chosen before the window shows (restored from settings)
    EXPECT_EQ(t.second->refreshes.size(), 1u);
    t.tabs.show();
    EXPECT_EQ(t.second->refreshes.size(), 1u);  // already current
}

TEST(ResultView, AViewRefreshesOnlyForTheSelectionItFollows)
{
    HeadSelection selection;
    CountingView headOnly(&selection, Change::Head);
    CountingView cells(&selection, Change::Head | Change::Cell);
    CountingView none(&selection, {});
    selection.setCell(2, 3);
    EXPECT_TRUE(headOnly.refreshes.empty());
    ASSERT_EQ(cells.refreshes.size(), 1u);
    EXPECT_EQ(cells.refreshes[0], Changes(Change::Cell));
    selection.setHead(1);
    ASSERT_EQ(headOnly.refreshes.size(), 1u);
    EXPECT_EQ(headOnly.refreshes[0], Changes(Change::Head));
    EXPECT_TRUE(none.refreshes.empty());
}

TEST(ResultView, AViewWithoutASharedSelectionHasItsOwn)
{
    CountingView view;
    ASSERT_NE(view.selection(), nullptr);
    view.selection()->setHead(2);
    ASSERT_EQ(view.refreshes.size(), 1u);
    EXPECT_EQ(view.seenHead, 2);
}

TEST(ResultView, AHeldUpdateRefreshesOnceForAResultAndTheClampItCauses)
{
    HeadSelection selection;
    CountingView view(&selection);
    view.setResult(someResult(8));
    selection.setHead(7);
    view.refreshes.clear();

    view.beginUpdate();
    view.beginUpdate();  // nests
    selection.clampTo(4, 10, 10);
    view.setResult(someResult(4));
    view.endUpdate();
    EXPECT_TRUE(view.refreshes.empty());
    view.endUpdate();
    ASSERT_EQ(view.refreshes.size(), 1u);
    EXPECT_EQ(view.refreshes[0], Change::Result | Change::Head);
    EXPECT_EQ(view.seenHead, 3);
}

TEST(ResultView, EnsureCurrentRefreshesAHiddenView)
{
    Tabs t;
    t.tabs.show();
    t.second->setResult(someResult());
    EXPECT_TRUE(t.second->refreshes.empty());
    t.second->ensureCurrent();
    EXPECT_EQ(t.second->refreshes.size(), 1u);
    t.second->ensureCurrent();  // not stale: nothing to do
    EXPECT_EQ(t.second->refreshes.size(), 1u);
    t.tabs.setCurrentIndex(1);
    EXPECT_EQ(t.second->refreshes.size(), 1u);
}

TEST(ResultView, OptionsChangedWhileHiddenWaitForTheShow)
{
    Tabs t;
    t.tabs.show();
    t.second->invalidate();
    t.second->invalidate(Change::Options);
    EXPECT_TRUE(t.second->refreshes.empty());
    t.tabs.setCurrentIndex(1);
    ASSERT_EQ(t.second->refreshes.size(), 1u);
    EXPECT_EQ(t.second->refreshes[0], Changes(Change::Options));
}

// A view that moves the selection while refreshing is refreshed again, never recursively.
class ClampingView : public CountingView {
public:
    using CountingView::CountingView;
    int depth = 0, deepest = 0;

protected:
    void refresh(Changes changes) override
    {
        deepest = std::max(deepest, ++depth);
        CountingView::refresh(changes);
        if (selection()->head() > 1) selection()->setHead(1);
        --depth;
    }
};

TEST(ResultView, ASelectionChangeMadeByRefreshIsRefreshedAfterIt)
{
    ClampingView view;
    view.selection()->setHead(5);
    ASSERT_EQ(view.refreshes.size(), 2u);
    EXPECT_EQ(view.seenHead, 1);
    EXPECT_EQ(view.deepest, 1);
}

// A long layer (each map kept pooled, Result::streamed()) of the example's shapes.
std::shared_ptr<const Result> longLayer()
{
    auto result = compute(prepareCompute(qkv::testing::exampleConfig(64, 4), {}, streamedPlan({}, 4)));
    EXPECT_TRUE(result.ok()) << (result.ok() ? std::string() : result.error());
    return result.ok() ? *result : nullptr;
}

TEST(ResultView, AViewThatDrawsNoLongLayerIsCoveredByANoteAndKeepsItsChangesForTheNextResult)
{
    HeadSelection selection;
    CountingView view(&selection, Change::Head);
    const auto held = someResult();
    view.setResult(held);
    ASSERT_EQ(view.refreshes.size(), 1u);
    EXPECT_EQ(view.longLayerCover(), nullptr);

    // A long layer: no refresh (it would read maps that are not held), a note in place instead.
    const auto streamed = longLayer();
    ASSERT_TRUE(streamed && streamed->streamed());
    view.setResult(streamed);
    selection.setHead(2);
    EXPECT_EQ(view.refreshes.size(), 1u);
    EXPECT_EQ(view.seenResult, held);
    ASSERT_NE(view.longLayerCover(), nullptr);
    EXPECT_TRUE(view.longLayerCover()->isVisibleTo(&view));
    EXPECT_TRUE(view.longLayerCover()->text().contains(QStringLiteral("Heads tab"))) << view.longLayerCover()->text().toStdString();
    EXPECT_FALSE(view.isStale());

    // The next result it draws uncovers it and brings every change meanwhile.
    view.setResult(held);
    ASSERT_EQ(view.refreshes.size(), 2u);
    EXPECT_EQ(view.refreshes[1], Changes(Change::Result) | Change::Head);
    EXPECT_EQ(view.seenHead, 2);
    EXPECT_FALSE(view.longLayerCover()->isVisibleTo(&view));
}

TEST(ResultView, AFigureThatDrawsNoLongLayerSaysWhyInsteadOfDrawing)
{
    const auto streamed = longLayer();
    ASSERT_TRUE(streamed);
    FigureInput input;
    input.result = streamed;
    int drawn = 0;
    for (const Figure& figure : allFigures()) {
        const QString why = figure.whyUnavailable(input);
        if (figure.drawsLongLayers) {
            ++drawn;
            EXPECT_TRUE(why.isEmpty()) << figure.name.toStdString() << ": " << why.toStdString();
        } else {
            EXPECT_TRUE(why.contains(QStringLiteral("long"))) << figure.name.toStdString() << ": " << why.toStdString();
        }
    }
    EXPECT_EQ(drawn, 4);  // the heads grid, one head, a query's row, the per-head statistics
}

}  // namespace
}  // namespace qkv::ui
