// MainWindow's Edit, View and Help menus, export and About (kept apart so main_window.cpp stays
// wiring only; the File menu is file_menu.cpp, Head and Scenarios head_menus.cpp, loads
// main_window_loads.cpp).
#include <QApplication>
#include <QMenuBar>
#include <QMessageBox>
#include <QUndoStack>

#include <Eigen/Core>

#include "ui/document/document.hpp"
#include "ui/mainwindow/appearance_menu.hpp"
#include "ui/mainwindow/figure_actions.hpp"
#include "ui/mainwindow/help_menu_extension.hpp"
#include "ui/mainwindow/main_window.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/views/result_view.hpp"

namespace qkv::ui {

void MainWindow::createMenus()
{
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = document_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = document_->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    // The status line says what was undone, so it never keeps an undone step's message (a
    // scenario's "It replaced your sentences" after Undo put them back).
    QUndoStack* stack = document_->undoStack();
    connect(undo, &QAction::triggered, this,
            [this, stack] { showStatus(tr("Undone: %1").arg(stack->text(stack->index()))); });
    connect(redo, &QAction::triggered, this,
            [this, stack] { showStatus(tr("Redone: %1").arg(stack->text(stack->index() - 1))); });

    // Each view's own entries (the heads grid's Show, Colormap, Average and zoom), then what
    // acts on the selection every view shares.
    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (ResultView* each : tabs_->views()) {
        const QList<QAction*> actions = each->viewMenuActions();
        if (actions.isEmpty()) continue;
        view->addActions(actions);
        view->addSeparator();
    }
    QAction* next = view->addAction(tr("&Next Head"), this, &MainWindow::nextHead);
    next->setShortcuts({QKeySequence(Qt::Key_BracketRight), QKeySequence(tr("Ctrl+PgDown"))});
    QAction* previous = view->addAction(tr("&Previous Head"), this, &MainWindow::previousHead);
    previous->setShortcuts({QKeySequence(Qt::Key_BracketLeft), QKeySequence(tr("Ctrl+PgUp"))});
    addAppearanceActions(view);  // High Contrast, Colours: light, dark, the desktop's
    createKeyboardActions(view);

    createHeadMenus();
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    // Student Guide (F1) and Glossary, installed from above this folder.
    if (const HelpMenuExtension& extend = helpMenuExtension()) helpExtension_ = extend(this, help);
    addKeyboardHelp(help);
    QAction* about = help->addAction(tr("&About QKV Studio"), this, &MainWindow::showAbout);
    about->setMenuRole(QAction::AboutRole);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::showAbout()
{
    const QString eigen =
        QStringLiteral("%1.%2.%3").arg(EIGEN_WORLD_VERSION).arg(EIGEN_MAJOR_VERSION).arg(EIGEN_MINOR_VERSION);
    QMessageBox::about(
        this, tr("About QKV Studio"),
        tr("<h3>QKV Studio %1</h3>"
           "<p>Multi-head attention, made visible: per-head attention, step by step, and why two thin "
           "matrices W<sub>i</sub><sup>Q</sup>, W<sub>i</sub><sup>K</sup> suffice.</p>"
           "<p>Based on Vaswani et al., “Attention Is All You Need”, NeurIPS 2017.</p>"
           "<p>Built with Qt %2 (running %3) and Eigen %4.</p>")
            .arg(QStringLiteral(QKV_VERSION), QStringLiteral(QT_VERSION_STR), QString::fromLatin1(qVersion()), eigen));
}

}  // namespace qkv::ui
