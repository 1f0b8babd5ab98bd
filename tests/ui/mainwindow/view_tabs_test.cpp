// ViewTabs holds the views through the one interface; a view in a background tab does no work
// until its tab is shown; the factored view's head box rebuilds the view once.

#include <QSignalSpy>
#include <QTabBar>

#include "tests/ui/support/window_fixture.hpp"
#include "ui/costs/costs_view.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/factored/factored_view.hpp"
#include "ui/figure_registry/figure_registry.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/steps/step_view.hpp"
#include "ui/train/train_tab.hpp"
#include "ui/views/head_box.hpp"
#include "ui/views/result_view.hpp"

namespace qkv::ui::testing {
namespace {

TEST_F(WindowTest, TabsAreTheViewsInTheirOrderTitledByThemselves)
{
    ViewTabs* tabs = window->tabs();
    // Every view, then the Train tab (it drives training rather than drawing the result).
    ASSERT_EQ(static_cast<int>(tabs->views().size()) + 1, tabs->count());
    EXPECT_EQ(tabs->widget(tabs->count() - 1), static_cast<QWidget*>(tabs->trainTab()));
    for (int i = 0; i < static_cast<int>(tabs->views().size()); ++i) {
        EXPECT_EQ(tabs->widget(i), tabs->views()[static_cast<std::size_t>(i)]);
        EXPECT_EQ(tabs->tabText(i), tabs->views()[static_cast<std::size_t>(i)]->title());
    }
    EXPECT_EQ(tabs->views().front(), tabs->headsView());
    EXPECT_TRUE(figureNamesOfView(tabs->headsView()->id()).contains(QStringLiteral("heads")));
    for (ResultView* view : tabs->views()) EXPECT_EQ(view->result(), window->document()->result());
}

// At the smallest window every tab shows: no scroll buttons, the last tab inside the bar. Each
// tab's tool tip says what it shows.
TEST_F(WindowTest, EveryTabShowsAtTheSmallestWindowAndSaysWhatItShows)
{
    window->resize(1000, 700);
    QCoreApplication::processEvents();
    ViewTabs* tabs = window->tabs();
    QTabBar* bar = tabs->tabBar();
    ASSERT_GT(bar->count(), 7);
    EXPECT_LE(bar->tabRect(bar->count() - 1).right(), bar->width()) << "the last tab is scrolled away";
    for (int i = 0; i < bar->count(); ++i) {
        EXPECT_GE(bar->tabRect(i).left(), 0);
        EXPECT_FALSE(bar->tabToolTip(i).isEmpty()) << bar->tabText(i).toStdString();
    }
}

TEST_F(WindowTest, BackgroundViewsDoNoWorkUntilTheirTabIsShown)
{
    ViewTabs* tabs = window->tabs();
    tabs->setCurrentWidget(tabs->headsView());
    std::vector<std::unique_ptr<QSignalSpy>> spies;
    for (ResultView* view : tabs->views()) spies.push_back(std::make_unique<QSignalSpy>(view, &ResultView::refreshed));
    QSignalSpy timing(tabs->costsView(), &CostsView::timingUpdated);

    qkv::Config config = smallConfig();
    config.seed = 11;
    setConfig(config);
    window->selection()->setCell(2, 1);
    EXPECT_EQ(spies[0]->count(), 1);  // the heads view, shown
    for (std::size_t i = 1; i < spies.size(); ++i) {
        EXPECT_EQ(spies[i]->count(), 0) << tabs->tabText(static_cast<int>(i)).toStdString();
        EXPECT_TRUE(tabs->views()[i]->isStale());
    }
    // No timing was measured for a comparison nobody looks at.
    EXPECT_EQ(timing.count(), 0);
    EXPECT_FALSE(tabs->costsView()->lastTiming().has_value());

    tabs->setCurrentWidget(tabs->costsView());
    EXPECT_EQ(spies[3]->count(), 1);
    EXPECT_FALSE(tabs->costsView()->isStale());
    ASSERT_TRUE(timing.count() > 0 || timing.wait(30000));
    EXPECT_EQ(tabs->costsView()->lastTiming()->d_model, 64);

    tabs->setCurrentWidget(tabs->stepView());
    EXPECT_EQ(spies[1]->count(), 1);
    EXPECT_EQ(tabs->stepView()->numbers().query, 2);
    EXPECT_EQ(tabs->stepView()->numbers().key, 1);
}

TEST_F(WindowTest, ANewResultRefreshesTheShownViewOnceEvenWhenItMovesTheSelection)
{
    ViewTabs* tabs = window->tabs();
    qkv::Config eight = smallConfig();
    eight.headCount = 8;
    setConfig(eight);
    tabs->setCurrentWidget(tabs->factoredView());
    window->selection()->setHead(7);
    settle();
    QSignalSpy refreshed(tabs->factoredView(), &ResultView::refreshed);
    QSignalSpy scores(tabs->factoredView(), &FactoredView::equivalenceReady);
    setConfig(smallConfig());  // h = 4: the selection moves from head 8 to head 4
    EXPECT_EQ(window->selection()->head(), 3);
    EXPECT_EQ(refreshed.count(), 1);
    EXPECT_EQ(scores.count(), 1);
    EXPECT_EQ(tabs->factoredView()->selectedHead(), 3);
}

TEST_F(WindowTest, ChangingTheHeadInTheFactoredViewsBoxRebuildsItOnce)
{
    ViewTabs* tabs = window->tabs();
    FactoredView* factored = tabs->factoredView();
    tabs->setCurrentWidget(factored);
    settle();
    auto* headBox = factored->findChild<HeadBox*>();
    ASSERT_NE(headBox, nullptr);
    QSignalSpy refreshed(factored, &ResultView::refreshed);
    QSignalSpy scores(factored, &FactoredView::equivalenceReady);  // one per scores-both-ways computation

    headBox->activated(2);  // "Head 3"
    settle();
    EXPECT_EQ(window->selection()->head(), 2);
    EXPECT_EQ(factored->selectedHead(), 2);
    EXPECT_EQ(refreshed.count(), 1);  // one model: factors, QR, SVD, spectrum
    EXPECT_EQ(scores.count(), 1);
    EXPECT_EQ(headBox->currentText(), QStringLiteral("Head 3"));
}

}  // namespace
}  // namespace qkv::ui::testing
