// The views' own options live in the session only: each view saves and restores its own, the
// View menu's entries come from the views, and nothing of them is left in QSettings.

#include <QMenu>
#include <QMenuBar>
#include <QSettings>

#include "tests/ui/support/window_fixture.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/qkmap/qk_map_view.hpp"
#include "ui/views/result_view.hpp"

namespace qkv::ui::testing {
namespace {

// The View menu's entry whose text is `text`, searched in its submenus too; null when none.
QAction* viewMenuEntry(MainWindow* window, const QString& text)
{
    for (QAction* menu : window->menuBar()->actions()) {
        if (!menu->menu() || menu->text() != QStringLiteral("&View")) continue;
        for (QAction* action : menu->menu()->actions()) {
            if (action->text() == text) return action;
            if (action->menu())
                for (QAction* inner : action->menu()->actions())
                    if (inner->text() == text) return inner;
        }
    }
    return nullptr;
}

// A new session's options with the heads grid's changed (and a tab and head of its own).
ViewOptions someHeadsOptions()
{
    ViewOptions options;
    options.tab = "qk-map";
    options.head = 2;
    options.colormap = "magma";
    options.show = "masked-scores";
    options.averageOfHeads = true;
    options.colorRange = {ColorRange::Mode::Fixed, -0.5, 2.5};
    options.zoom = 1.5625;
    return options;
}

TEST_F(WindowTest, ANewHeadsViewShowsANewSessionsOptions)
{
    HeadsView view(nullptr);
    ViewOptions saved;
    view.saveOptions(saved);
    EXPECT_EQ(saved, ViewOptions{});
    EXPECT_EQ(view.colormap(), ColormapName::Viridis);
    view.setScoreKind(ScoreKind::ScaledScores);
    EXPECT_EQ(view.colormap(), ColormapName::BlueOrange);  // scores start diverging, blue-orange
}

TEST_F(WindowTest, HeadsViewRestoresAndSavesItsOptions)
{
    HeadsView view(nullptr);
    view.restoreOptions(someHeadsOptions());
    EXPECT_EQ(view.scoreKind(), ScoreKind::MaskedScores);
    EXPECT_EQ(view.colormap(), ColormapName::Magma);
    EXPECT_TRUE(view.showAverage());
    EXPECT_EQ(view.colorRange(), (ColorRange{ColorRange::Mode::Fixed, -0.5, 2.5}));
    EXPECT_DOUBLE_EQ(view.zoom(), 1.5625);
    ViewOptions saved;
    view.saveOptions(saved);
    ViewOptions expected = someHeadsOptions();
    expected.tab = ViewOptions{}.tab;  // not the view's own: left as they were
    expected.head = 0;
    EXPECT_EQ(saved, expected);
}

TEST_F(WindowTest, ChangingTheHeadsOptionsChangesTheSessionsAndNothingElse)
{
    const QStringList settingsBefore = QSettings().allKeys();
    HeadsView* heads = window->headsView();
    heads->setScoreKind(ScoreKind::ScaledScores);
    heads->setColormap(ColormapName::Magma);
    heads->setShowAverage(true);
    heads->setColorRange({ColorRange::Mode::UnitInterval, 0.0, 1.0});
    heads->zoomBy(1);
    const ViewOptions& view = window->document()->viewOptions();
    EXPECT_EQ(view.show, "scores");
    EXPECT_EQ(view.colormap, "magma");
    EXPECT_TRUE(view.averageOfHeads);
    EXPECT_EQ(view.colorRange.mode, ColorRange::Mode::UnitInterval);
    EXPECT_DOUBLE_EQ(view.zoom, 1.25);
    EXPECT_TRUE(window->document()->isModified());
    // The session is the one place: QSettings holds what it held before, no view option.
    EXPECT_EQ(QSettings().allKeys(), settingsBefore);
    for (const QString& key : QSettings().allKeys())
        EXPECT_FALSE(key.startsWith(QStringLiteral("headsView"))) << key.toStdString();
}

TEST_F(WindowTest, ReplacingTheSessionsViewOptionsShowsThemInEveryView)
{
    Session session = window->document()->session();
    session.view = someHeadsOptions();
    window->document()->replace(session, QString());
    settle();
    HeadsView* heads = window->headsView();
    EXPECT_EQ(heads->scoreKind(), ScoreKind::MaskedScores);
    EXPECT_EQ(heads->colormap(), ColormapName::Magma);
    EXPECT_TRUE(heads->showAverage());
    EXPECT_EQ(heads->colorRange(), (ColorRange{ColorRange::Mode::Fixed, -0.5, 2.5}));
    EXPECT_DOUBLE_EQ(heads->zoom(), 1.5625);
    EXPECT_NE(qobject_cast<QkMapView*>(window->tabs()->currentWidget()), nullptr);
    EXPECT_EQ(window->document()->viewOptions(), someHeadsOptions());
    EXPECT_FALSE(window->document()->isModified());
    // The View menu shows them too.
    QAction* magma = viewMenuEntry(window.get(), Colormap::get(ColormapName::Magma).displayName());
    ASSERT_NE(magma, nullptr);
    EXPECT_TRUE(magma->isChecked());
    QAction* average = viewMenuEntry(window.get(), QStringLiteral("&Average of Heads"));
    ASSERT_NE(average, nullptr);
    EXPECT_TRUE(average->isChecked());
}

TEST_F(WindowTest, TheViewMenuDrivesTheHeadsViewThroughItsOwnEntries)
{
    HeadsView* heads = window->headsView();
    const QList<QAction*> own = heads->viewMenuActions();
    ASSERT_FALSE(own.isEmpty());
    QAction* scores = viewMenuEntry(window.get(), scoreKindName(ScoreKind::ScaledScores));
    ASSERT_NE(scores, nullptr);
    EXPECT_EQ(scores->shortcut(), QKeySequence(QStringLiteral("Ctrl+2")));
    scores->trigger();
    EXPECT_EQ(heads->scoreKind(), ScoreKind::ScaledScores);
    EXPECT_EQ(window->document()->viewOptions().show, "scores");
    QAction* magma = viewMenuEntry(window.get(), Colormap::get(ColormapName::Magma).displayName());
    ASSERT_NE(magma, nullptr);
    magma->trigger();
    EXPECT_EQ(heads->colormap(), ColormapName::Magma);
    EXPECT_EQ(window->document()->viewOptions().colormap, "magma");
    // Set on the view, the menu follows.
    heads->setScoreKind(ScoreKind::Attention);
    QAction* weights = viewMenuEntry(window.get(), scoreKindName(ScoreKind::Attention));
    ASSERT_NE(weights, nullptr);
    EXPECT_TRUE(weights->isChecked());
    EXPECT_FALSE(scores->isChecked());
    // Every kind of the table has its entry: value-weighted attention fourth.
    QAction* valueWeighted = viewMenuEntry(window.get(), scoreKindName(ScoreKind::ValueWeighted));
    ASSERT_NE(valueWeighted, nullptr);
    EXPECT_EQ(valueWeighted->shortcut(), QKeySequence(QStringLiteral("Ctrl+4")));
    valueWeighted->trigger();
    EXPECT_EQ(heads->scoreKind(), ScoreKind::ValueWeighted);
    EXPECT_EQ(heads->colormap(), ColormapName::Magma);
    EXPECT_EQ(window->document()->viewOptions().show, "value-weighted");
    EXPECT_NE(heads->canvas()->figure()->valueNorms(), nullptr);
    heads->setScoreKind(ScoreKind::Attention);
    QAction* zoomIn = viewMenuEntry(window.get(), QStringLiteral("Zoom &In"));
    ASSERT_NE(zoomIn, nullptr);
    zoomIn->trigger();
    EXPECT_DOUBLE_EQ(heads->zoom(), 1.25);
    QAction* fit = viewMenuEntry(window.get(), QStringLiteral("&Fit All Heads"));
    ASSERT_NE(fit, nullptr);
    fit->trigger();
    EXPECT_DOUBLE_EQ(heads->zoom(), 1.0);
    EXPECT_NE(viewMenuEntry(window.get(), QStringLiteral("&Next Head")), nullptr);
}

TEST_F(WindowTest, TheNextStartShowsTheLastSessionsTabAndOptions)
{
    window.reset();
    Session last;
    last.config = smallConfig();
    last.view = someHeadsOptions();
    leaveAutosave(last);
    MainWindow next;
    next.document()->waitUntilIdle();
    QCoreApplication::processEvents();
    EXPECT_NE(qobject_cast<QkMapView*>(next.tabs()->currentWidget()), nullptr);
    EXPECT_EQ(next.headsView()->colormap(), ColormapName::Magma);
    EXPECT_EQ(next.headsView()->scoreKind(), ScoreKind::MaskedScores);
    EXPECT_EQ(next.document()->viewOptions(), someHeadsOptions());

    // Without a session (the first start), a new session's options, whatever the last run chose.
    clearAutosave();
    MainWindow first;
    first.document()->waitUntilIdle();
    EXPECT_EQ(first.tabs()->currentWidget(), first.headsView());
    EXPECT_EQ(first.headsView()->scoreKind(), ScoreKind::Attention);
    EXPECT_EQ(first.headsView()->colormap(), ColormapName::Viridis);
    EXPECT_FALSE(first.headsView()->showAverage());
    EXPECT_EQ(first.headsView()->colorRange(), ColorRange{});
    EXPECT_DOUBLE_EQ(first.headsView()->zoom(), 1.0);
}

}  // namespace
}  // namespace qkv::ui::testing
