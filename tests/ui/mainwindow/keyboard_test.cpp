// The keyboard reaches everything: every tab on a key, Help > Keyboard lists every shortcut the
// window's actions carry (read from them: an action added later is listed too), the keys it
// documents for the heatmaps do what it says, Show Chart as Table, a focus ring where the style
// draws none, and Tab goes through every focusable widget of every tab and comes back (no trap).

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTimer>
#include <QContextMenuEvent>

#include <set>

#include "tests/ui/support/window_fixture.hpp"
#include "ui/controls/controls_panel.hpp"
#include "ui/costs/costs_view.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figure_widgets/chart_table.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/focus_ring.hpp"
#include "ui/mainwindow/keyboard_shortcuts.hpp"
#include "ui/mainwindow/view_tabs.hpp"

using qkv::ui::testing::WindowTest;

namespace qkv::ui {
namespace {

QString describe(const QWidget* w)
{
    QString text = QString::fromLatin1(w->metaObject()->className());
    if (!w->accessibleName().isEmpty()) text += QStringLiteral(" '%1'").arg(w->accessibleName());
    if (const auto* b = qobject_cast<const QAbstractButton*>(w)) text += QStringLiteral(" '%1'").arg(b->text());
    if (const QWidget* p = w->parentWidget()) text += QStringLiteral(" in ") + QString::fromLatin1(p->metaObject()->className());
    return text;
}

// Every action reachable from the menu bar, with the menu path it is under.
void menuActions(const QMenu& menu, std::vector<const QAction*>& out)
{
    for (const QAction* a : menu.actions()) {
        if (const QMenu* sub = a->menu())
            menuActions(*sub, out);
        else if (!a->isSeparator())
            out.push_back(a);
    }
}

class Keyboard : public WindowTest {
protected:
    void SetUp() override
    {
        WindowTest::SetUp();
        window->activateWindow();
        ASSERT_TRUE(QTest::qWaitForWindowActive(window.get()));
    }

    QAction* menuAction(const QString& text)
    {
        std::vector<const QAction*> all;
        for (QAction* top : window->menuBar()->actions())
            if (top->menu()) menuActions(*top->menu(), all);
        for (const QAction* a : all)
            if (withoutMnemonic(a->text()) == text) return const_cast<QAction*>(a);
        return nullptr;
    }

    KeyboardDialog* openKeyboardHelp()
    {
        QAction* help = menuAction(QStringLiteral("Keyboard"));
        if (!help) return nullptr;
        help->trigger();
        const QList<KeyboardDialog*> dialogs = window->findChildren<KeyboardDialog*>();
        return dialogs.isEmpty() ? nullptr : dialogs.back();
    }

    static bool listed(const QTableWidget& table, const QString& keys, const QString& what)
    {
        for (int r = 0; r < table.rowCount(); ++r)
            if (table.item(r, 0)->text() == keys && table.item(r, 1)->text() == what) return true;
        return false;
    }

    // Every tab in turn: Tab from the first stop goes through every stop and comes back, and
    // inside each pane it goes in reading order.
    void expectTabCyclesInReadingOrder();

    // Visible, enabled widgets of the window that Tab stops on.
    std::set<QWidget*> tabStops() const
    {
        std::set<QWidget*> stops;
        for (QWidget* w : window->findChildren<QWidget*>())
            if (w->isVisibleTo(window.get()) && w->isEnabled() && (w->focusPolicy() & Qt::TabFocus) && !w->focusProxy() &&
                w->window() == window.get())
                stops.insert(w);
        return stops;
    }
};

TEST_F(Keyboard, EveryTabHasAKey)
{
    ViewTabs* tabs = window->tabs();
    ASSERT_GE(tabs->count(), 10);
    for (int i = 0; i < 10; ++i) {
        tabs->setCurrentIndex(i == 0 ? 1 : 0);
        QTest::keyClick(window.get(), i < 9 ? Qt::Key(Qt::Key_1 + i) : Qt::Key_0, Qt::AltModifier);
        EXPECT_EQ(tabs->currentIndex(), i) << "Alt+" << (i < 9 ? i + 1 : 0);
    }
    // The rest in turn, forwards and back, round the end.
    tabs->setCurrentIndex(tabs->count() - 1);
    QTest::keyClick(window.get(), Qt::Key_Tab, Qt::ControlModifier);
    EXPECT_EQ(tabs->currentIndex(), 0);
    QTest::keyClick(window.get(), Qt::Key_Backtab, Qt::ControlModifier | Qt::ShiftModifier);
    EXPECT_EQ(tabs->currentIndex(), tabs->count() - 1);
}

TEST_F(Keyboard, HelpKeyboardListsEveryShortcutOfTheMenus)
{
    // Added after the window was made: the dialog reads the actions, it keeps no list of its own.
    QAction* late = window->menuBar()->actions().front()->menu()->addAction(QStringLiteral("Late Arrival"));
    late->setShortcut(QKeySequence(QStringLiteral("Ctrl+Alt+J")));

    KeyboardDialog* dialog = openKeyboardHelp();
    ASSERT_NE(dialog, nullptr);
    const QTableWidget& table = *dialog->table();
    std::vector<const QAction*> all;
    for (QAction* top : window->menuBar()->actions())
        if (top->menu()) menuActions(*top->menu(), all);
    int withKeys = 0;
    for (const QAction* a : all)
        for (const QKeySequence& key : a->shortcuts()) {
            if (key.isEmpty()) continue;
            ++withKeys;
            const QString keys = QKeySequence::listToString(a->shortcuts(), QKeySequence::NativeText);
            EXPECT_TRUE(listed(table, keys, withoutMnemonic(a->text())))
                << withoutMnemonic(a->text()).toStdString() << " on " << keys.toStdString();
            break;
        }
    EXPECT_GT(withKeys, 20);
    EXPECT_TRUE(listed(table, QKeySequence(QStringLiteral("Ctrl+Alt+J")).toString(QKeySequence::NativeText),
                       QStringLiteral("Late Arrival")));
    // The documented keys of the heatmaps and of the focus chain are there as well.
    for (const KeyboardEntry& e : documentedKeys()) EXPECT_TRUE(listed(table, e.keys, e.what)) << e.what.toStdString();
    QAccessibleInterface* a = QAccessible::queryAccessibleInterface(dialog->table());
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->role(), QAccessible::Table);
    dialog->close();
}

TEST_F(Keyboard, EveryActionTheIssueNamesHasAKey)
{
    // Tabs, heads, the guide, export, training, Open Model, and the charts' tables.
    for (const char* text : {"Next Tab", "Previous Tab", "Next Head", "Previous Head", "Student Guide", "Export Figure…",
                             "Start or Resume Training", "Pause Training", "Open Model…", "Show Chart as Table",
                             "Keyboard"}) {
        QAction* action = menuAction(QString::fromUtf8(text));
        ASSERT_NE(action, nullptr) << text;
        EXPECT_FALSE(action->shortcut().isEmpty()) << text;
    }
}

TEST_F(Keyboard, TheHeatmapKeysDoWhatHelpSays)
{
    window->tabs()->setCurrentWidget(window->headsView());
    settle();
    HeadsCanvas* canvas = window->headsView()->canvas();
    canvas->setFocus();
    HeadSelection* selection = window->selection();
    selection->setCell(0, 0);
    const auto press = [&](Qt::Key key) { QTest::keyClick(canvas, key); };
    press(Qt::Key_Down);
    EXPECT_EQ(selection->queryRow(), 1);
    press(Qt::Key_Right);
    EXPECT_EQ(selection->keyColumn(), 1);
    press(Qt::Key_End);
    EXPECT_EQ(selection->keyColumn(), static_cast<int>(window->document()->result()->attention.keyCount()) - 1);
    press(Qt::Key_Home);
    EXPECT_EQ(selection->keyColumn(), 0);
    press(Qt::Key_Up);
    EXPECT_EQ(selection->queryRow(), 0);
    // Help says so, in the keys' own names.
    QStringList documented;
    for (const KeyboardEntry& e : documentedKeys()) documented << e.keys;
    for (const char* key : {"Up", "Down", "Left", "Right", "Home", "End"})
        EXPECT_TRUE(documented.join(QStringLiteral(", ")).contains(QKeySequence(QString::fromLatin1(key)).toString(QKeySequence::NativeText)))
            << key;
}

TEST_F(Keyboard, CtrlTShowsTheChartOfTheTabAsATable)
{
    window->tabs()->setCurrentWidget(window->tabs()->costsView());
    settle();
    const QList<QWidget*> charts = chartTableSources(window->tabs()->costsView());
    ASSERT_FALSE(charts.isEmpty());
    QTest::keyClick(window.get(), Qt::Key_T, Qt::ControlModifier);
    const QList<ChartTableDialog*> dialogs = charts.front()->findChildren<ChartTableDialog*>();
    ASSERT_EQ(dialogs.size(), 1);
    EXPECT_GT(dialogs.front()->model()->rowCount(), 0);
    dialogs.front()->close();
    // With another chart focused, that one's.
    if (charts.size() > 1) {
        charts[1]->setFocus();
        QTest::keyClick(window.get(), Qt::Key_T, Qt::ControlModifier);
        EXPECT_EQ(charts[1]->findChildren<ChartTableDialog*>().size(), 1);
    }
}

// The context menu of a chart (the Menu key, or a right click) offers its table before the tab's
// Export Figure…: the view's menu includes the action of the chart under it.
TEST_F(Keyboard, AChartsContextMenuOffersItsTable)
{
    window->tabs()->setCurrentWidget(window->tabs()->costsView());
    settle();
    const QList<QWidget*> charts = chartTableSources(window->tabs()->costsView());
    ASSERT_FALSE(charts.isEmpty());
    auto* chart = qobject_cast<QAbstractScrollArea*>(charts.front());
    ASSERT_NE(chart, nullptr);
    QStringList shown;
    QTimer::singleShot(0, [&shown] {
        if (auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget())) {
            for (const QAction* a : menu->actions())
                if (!a->isSeparator()) shown << withoutMnemonic(a->text());
            menu->close();
        }
    });
    const QPoint at = chart->viewport()->rect().center();
    QContextMenuEvent event(QContextMenuEvent::Keyboard, at, chart->viewport()->mapToGlobal(at));
    QApplication::sendEvent(chart->viewport(), &event);
    ASSERT_GE(shown.size(), 2) << shown.join(QStringLiteral(", ")).toStdString();
    EXPECT_EQ(shown.front(), withoutMnemonic(showAsTableActionFor(chart)->text()));
    EXPECT_TRUE(shown.contains(QStringLiteral("Export Figure…"))) << shown.join(QStringLiteral(", ")).toStdString();
}

TEST_F(Keyboard, AFocusedChartGetsAFocusRingAndAComboBoxKeepsItsStyles)
{
    window->tabs()->setCurrentWidget(window->tabs()->costsView());
    settle();
    const QList<QWidget*> charts = chartTableSources(window->tabs()->costsView());
    ASSERT_FALSE(charts.isEmpty());
    auto* chart = qobject_cast<QAbstractScrollArea*>(charts.front());
    ASSERT_NE(chart, nullptr);
    chart->setFocus(Qt::TabFocusReason);
    QCoreApplication::processEvents();
    ASSERT_EQ(window->focusRing()->ringedWidget(), chart->viewport());
    const QImage image = chart->viewport()->grab().toImage();
    const QColor ring = chart->palette().color(QPalette::Highlight);
    const QPoint corners[] = {{1, image.height() / 2}, {image.width() / 2, 1}, {image.width() - 2, image.height() / 2}};
    for (const QPoint& p : corners) EXPECT_EQ(image.pixelColor(p).rgb(), ring.rgb()) << p.x() << "," << p.y();
    // Unfocused: no ring.
    QWidget* box = window->controls()->modeBox();
    box->setFocus(Qt::TabFocusReason);
    QCoreApplication::processEvents();
    EXPECT_EQ(window->focusRing()->ringedWidget(), nullptr);
    const QImage after = chart->viewport()->grab().toImage();
    EXPECT_NE(after.pixelColor(corners[0]).rgb(), ring.rgb());

    // A heatmap canvas gets it too, unless it says it draws its own.
    window->tabs()->setCurrentWidget(window->headsView());
    settle();
    HeadsCanvas* canvas = window->headsView()->canvas();
    canvas->setFocus(Qt::TabFocusReason);
    QCoreApplication::processEvents();
    EXPECT_EQ(window->focusRing()->ringedWidget(), canvas);
    canvas->setProperty(kDrawsOwnFocusFrame, true);
    box->setFocus(Qt::TabFocusReason);
    canvas->setFocus(Qt::TabFocusReason);
    QCoreApplication::processEvents();
    EXPECT_EQ(window->focusRing()->ringedWidget(), nullptr);
}

TEST_F(Keyboard, TabGoesThroughEveryWidgetOfEveryTabAndReturns) { expectTabCyclesInReadingOrder(); }

TEST_F(Keyboard, TabGoesThroughEveryWidgetOfTheDemoModelAndReturns)
{
    QSignalSpy loaded(window.get(), &MainWindow::checkpointLayerLoaded);
    ASSERT_TRUE(window->openDemoModel());
    ASSERT_TRUE(loaded.wait(20000));
    settle();
    expectTabCyclesInReadingOrder();
}

void Keyboard::expectTabCyclesInReadingOrder()
{
    ViewTabs* tabs = window->tabs();
    for (int i = 0; i < tabs->count(); ++i) {
        tabs->setCurrentIndex(i);
        settle();
        const std::set<QWidget*> stops = tabStops();
        ASSERT_FALSE(stops.empty());
        QWidget* first = *stops.begin();
        for (QWidget* w : stops)
            if (window->controls()->isAncestorOf(w)) {
                first = w;
                break;
            }
        first->setFocus(Qt::TabFocusReason);
        QWidget* start = QApplication::focusWidget();
        ASSERT_NE(start, nullptr);
        std::set<QWidget*> visited{start};
        std::vector<QWidget*> order{start};
        bool returned = false;
        const int limit = 2 * static_cast<int>(stops.size()) + 10;
        for (int press = 0; press < limit && !returned; ++press) {
            QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
            QWidget* now = QApplication::focusWidget();
            ASSERT_NE(now, nullptr);
            returned = now == start;
            visited.insert(now);
            if (!returned) order.push_back(now);
        }
        const std::string tab = tabs->tabText(i).remove(QLatin1Char('&')).toStdString();
        EXPECT_TRUE(returned) << tab << ": Tab never came back to where it started; stuck at "
                              << describe(QApplication::focusWidget()).toStdString();
        QStringList missed;
        for (QWidget* w : stops)
            if (!visited.count(w)) missed << describe(w);
        EXPECT_TRUE(missed.isEmpty()) << tab << ": Tab never reaches " << missed.join(QStringLiteral("; ")).toStdString();
        // Reading order inside each pane (the settings, the tab): the next stop is lower down, or on
        // the same line to the right; a jump back up or left is a wrong tab order.
        QStringList backwards;
        for (std::size_t k = 1; k < order.size(); ++k) {
            QWidget* a = order[k - 1];
            QWidget* b = order[k];
            const bool settingsA = window->controls()->isAncestorOf(a), settingsB = window->controls()->isAncestorOf(b);
            if (settingsA != settingsB || (!settingsA && !(tabs->currentWidget()->isAncestorOf(a) &&
                                                           tabs->currentWidget()->isAncestorOf(b))))
                continue;
            const QRect ra(a->mapTo(window.get(), QPoint()), a->size()), rb(b->mapTo(window.get(), QPoint()), b->size());
            const bool sameLine = rb.top() < ra.bottom() && ra.top() < rb.bottom();
            const bool onward = sameLine ? rb.left() >= ra.left() : rb.top() >= ra.top();
            if (!onward) backwards << describe(a) + QStringLiteral(" -> ") + describe(b);
        }
        QStringList visitedInOrder;
        for (QWidget* w : order) visitedInOrder << describe(w);
        EXPECT_TRUE(backwards.isEmpty()) << tab << ": Tab goes back against the reading order: "
                                         << backwards.join(QStringLiteral("; ")).toStdString() << "\nThe order: "
                                         << visitedInOrder.join(QStringLiteral(" | ")).toStdString();
    }
}

}  // namespace
}  // namespace qkv::ui
