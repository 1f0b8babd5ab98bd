// Every view states its id once: the tabs, the figures' view and the session's view.tab all use
// it, and it keeps the names session files have always held.

#include "tests/ui/support/window_fixture.hpp"
#include "ui/figure_registry/figure_registry.hpp"
#include "ui/figures/figure.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/views/result_view.hpp"

namespace qkv::ui::testing {
namespace {

TEST_F(WindowTest, EveryViewHasOneUniqueIdThatItsFiguresName)
{
    QStringList ids;
    for (const ResultView* view : window->tabs()->views()) {
        const QString id = view->id();
        EXPECT_FALSE(id.isEmpty()) << view->title().toStdString();
        EXPECT_FALSE(ids.contains(id)) << id.toStdString();
        ids << id;
        for (const QString& name : figureNamesOfView(view->id())) {
            const Figure* figure = findFigure(name);
            ASSERT_NE(figure, nullptr) << name.toStdString();
            EXPECT_EQ(figure->view, id) << name.toStdString();
        }
    }
    // The names sessions have always held (they were the class names, in dashes).
    EXPECT_EQ(
        ids, (QStringList{"heads", "step", "factored", "comparison", "matrices", "qk-map", "compare", "model",
                          "predictions", "circuits", "head-weights"}));
    // Every figure belongs to a tab, so its tab exports it.
    for (const Figure& figure : allFigures()) EXPECT_TRUE(ids.contains(figure.view)) << figure.name.toStdString();
}

TEST_F(WindowTest, TheSessionsTabRoundTripsThroughTheIds)
{
    ViewTabs* tabs = window->tabs();
    for (ResultView* view : tabs->views()) {
        tabs->setCurrentWidget(view);
        EXPECT_EQ(window->document()->viewOptions().tab, view->id().toStdString());
    }
    for (ResultView* view : tabs->views()) {
        tabs->setCurrentIndex(view == tabs->views().front() ? 1 : 0);
        Session session = window->document()->session();
        session.view.tab = view->id().toStdString();
        window->document()->replace(session, QString());
        EXPECT_EQ(tabs->currentWidget(), view) << view->id().toStdString();
        EXPECT_EQ(tabs->view(view->id()), view);
    }
    // A tab this version does not have (a newer file's) leaves the tab shown as it is.
    Session session = window->document()->session();
    session.view.tab = "no-such-view";
    QWidget* shown = tabs->currentWidget();
    window->document()->replace(session, QString());
    EXPECT_EQ(tabs->currentWidget(), shown);
}

}  // namespace
}  // namespace qkv::ui::testing
