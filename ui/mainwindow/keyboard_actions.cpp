// MainWindow's keyboard paths that no single view owns: the tabs (View > Tabs: Ctrl+Tab and
// Ctrl+Shift+Tab in turn, Alt+1 … Alt+9 and Alt+0 directly; Ctrl+1 … are the heads grid's
// Show kinds and Ctrl+PgUp/PgDown the heads), Show Chart as Table, training started or paused
// from any tab, Help > Keyboard, and the focus ring (focus_ring.hpp).
#include <QApplication>
#include <QMenu>
#include <QPushButton>
#include <QStatusBar>

#include <algorithm>

#include "ui/figure_widgets/chart_table.hpp"
#include "ui/mainwindow/focus_ring.hpp"
#include "ui/mainwindow/keyboard_shortcuts.hpp"
#include "ui/mainwindow/main_window.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/train/train_tab.hpp"

namespace qkv::ui {
namespace {

// Alt+1 … Alt+9, then Alt+0 for the tenth tab (as browsers number theirs).
QKeySequence tabKey(int index)
{
    return index < 9 ? QKeySequence(QStringLiteral("Alt+%1").arg(index + 1))
                     : (index == 9 ? QKeySequence(QStringLiteral("Alt+0")) : QKeySequence());
}

}  // namespace

void MainWindow::createKeyboardActions(QMenu* view)
{
    focusRing_ = new FocusRing(this);
    view->addSeparator();
    QMenu* tabs = view->addMenu(tr("&Tabs"));
    QAction* next = tabs->addAction(tr("&Next Tab"), this,
                                    [this] { tabs_->setCurrentIndex((tabs_->currentIndex() + 1) % tabs_->count()); });
    next->setShortcut(QKeySequence(tr("Ctrl+Tab")));
    QAction* previous = tabs->addAction(tr("&Previous Tab"), this, [this] {
        tabs_->setCurrentIndex((tabs_->currentIndex() + tabs_->count() - 1) % tabs_->count());
    });
    previous->setShortcut(QKeySequence(tr("Ctrl+Shift+Tab")));
    tabs->addSeparator();
    // Filled when shown: the Train tab joins after the menus are made.
    const auto fill = [this, tabs, next, previous] {
        for (QAction* a : tabs->actions())
            if (a != next && a != previous && !a->isSeparator()) delete a;
        for (int i = 0; i < tabs_->count(); ++i) {
            QAction* go = tabs->addAction(tabs_->tabText(i), this, [this, i] {
                tabs_->setCurrentIndex(i);
                tabs_->currentWidget()->setFocus(Qt::ShortcutFocusReason);
            });
            go->setShortcut(tabKey(i));
            go->setStatusTip(tabs_->tabToolTip(i));
        }
    };
    fill();
    connect(tabs, &QMenu::aboutToShow, this, fill);

    QAction* table = view->addAction(tr("Show Chart as &Table"), this, &MainWindow::showChartAsTable);
    table->setShortcut(QKeySequence(tr("Ctrl+T")));
    table->setStatusTip(tr("The numbers of the focused chart (or the tab's first chart) as a table, with Copy"));

    view->addSeparator();
    // Training from any tab: the Train tab's own buttons, shown and pressed, so what they allow
    // (a valid form, a run to pause) is the one rule.
    const auto press = [this](QPushButton* button) {
        tabs_->setCurrentWidget(trainTab_);
        if (button->isEnabled())
            button->click();
        else
            showStatus(tr("“%1” is not available now: %2").arg(button->text().remove(QLatin1Char('&')), button->toolTip()));
    };
    QAction* start = view->addAction(tr("Start or Resume T&raining"), this, [this, press] { press(trainTab_->startButton()); });
    start->setShortcut(QKeySequence(tr("F5")));
    start->setStatusTip(tr("The Train tab's Start (or Resume) with its settings"));
    QAction* pause = view->addAction(tr("Pa&use Training"), this, [this, press] { press(trainTab_->pauseButton()); });
    pause->setShortcut(QKeySequence(tr("Shift+F5")));
    pause->setStatusTip(tr("The Train tab's Pause: stop after the current step"));
}

void MainWindow::addKeyboardHelp(QMenu* help)
{
    QAction* keyboard = help->addAction(tr("&Keyboard"), this, &MainWindow::showKeyboardHelp);
    keyboard->setShortcut(QKeySequence(tr("Ctrl+/")));
    keyboard->setStatusTip(tr("Every shortcut and key of the window, as the menus and views define them"));
    help->addSeparator();
}

void MainWindow::showChartAsTable()
{
    QAction* table = showAsTableActionFor(QApplication::focusWidget());
    if (!table) {
        const QList<QWidget*> charts = chartTableSources(tabs_->currentWidget());
        if (!charts.isEmpty()) table = showAsTableActionFor(charts.front());
    }
    if (table)
        table->trigger();
    else
        showStatus(tr("This tab shows no chart to list as a table."));
}

void MainWindow::showKeyboardHelp()
{
    auto* dialog = new KeyboardDialog(*this, tabs_, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // Most of the window's height: the list is long, and a reader scans it whole.
    dialog->resize(dialog->width(), std::max(dialog->height(), height() * 4 / 5));
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
}

}  // namespace qkv::ui
