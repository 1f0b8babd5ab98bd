// MainWindow's Edit, View and Help menus, export and About (kept apart so main_window.cpp stays
// wiring only; the File menu is file_menu.cpp, Head and Scenarios head_menus.cpp, loads
// main_window_loads.cpp).
#include <QActionGroup>
#include <QApplication>
#include <QMenuBar>
#include <QMessageBox>
#include <QUndoStack>

#include <Eigen/Core>

#include "ui/document/document.hpp"
#include "ui/export/figure_actions.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/main_window.hpp"
#include "ui/mainwindow/view_tabs.hpp"

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

    HeadsView* heads = headsView();
    QMenu* view = menuBar()->addMenu(tr("&View"));
    QMenu* show = view->addMenu(tr("&Show"));
    auto* kinds = new QActionGroup(this);
    const ScoreKind allKinds[] = {ScoreKind::Attention, ScoreKind::ScaledScores, ScoreKind::MaskedScores};
    for (int i = 0; i < 3; ++i) {
        const ScoreKind kind = allKinds[i];
        QAction* action = show->addAction(scoreKindName(kind));
        action->setCheckable(true);
        action->setChecked(heads->scoreKind() == kind);
        action->setShortcut(QKeySequence(QStringLiteral("Ctrl+%1").arg(i + 1)));
        kinds->addAction(action);
        connect(action, &QAction::triggered, heads, [heads, kind] { heads->setScoreKind(kind); });
        connect(heads, &HeadsView::scoreKindChanged, action, [action, kind](ScoreKind k) { action->setChecked(k == kind); });
    }
    QMenu* colormaps = view->addMenu(tr("&Colormap"));
    auto* maps = new QActionGroup(this);
    for (ColormapName name : Colormap::all()) {
        QAction* action = colormaps->addAction(Colormap::get(name).displayName());
        action->setCheckable(true);
        action->setChecked(heads->colormap() == name);
        maps->addAction(action);
        connect(action, &QAction::triggered, heads, [heads, name] { heads->setColormap(name); });
        connect(heads, &HeadsView::colormapChanged, action, [action, name](ColormapName n) { action->setChecked(n == name); });
    }
    QAction* average = view->addAction(tr("&Average of Heads"));
    average->setCheckable(true);
    average->setChecked(heads->showAverage());
    connect(average, &QAction::toggled, heads, &HeadsView::setShowAverage);
    connect(heads, &HeadsView::showAverageChanged, average, &QAction::setChecked);
    view->addSeparator();
    QAction* next = view->addAction(tr("&Next Head"), this, &MainWindow::nextHead);
    next->setShortcuts({QKeySequence(Qt::Key_BracketRight), QKeySequence(tr("Ctrl+PgDown"))});
    QAction* previous = view->addAction(tr("&Previous Head"), this, &MainWindow::previousHead);
    previous->setShortcuts({QKeySequence(Qt::Key_BracketLeft), QKeySequence(tr("Ctrl+PgUp"))});
    view->addSeparator();
    QAction* zoomIn = view->addAction(tr("Zoom &In"), heads, [heads] { heads->zoomBy(1); });
    zoomIn->setShortcut(QKeySequence::ZoomIn);
    QAction* zoomOut = view->addAction(tr("Zoom &Out"), heads, [heads] { heads->zoomBy(-1); });
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    QAction* fit = view->addAction(tr("&Fit All Heads"), heads, &HeadsView::zoomToFit);
    fit->setShortcut(QKeySequence(tr("Ctrl+0")));

    createHeadMenus();
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* about = help->addAction(tr("&About QKV Studio"), this, &MainWindow::showAbout);
    about->setMenuRole(QAction::AboutRole);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::showAbout()
{
    const QString eigen = QStringLiteral("%1.%2.%3").arg(EIGEN_WORLD_VERSION).arg(EIGEN_MAJOR_VERSION).arg(EIGEN_MINOR_VERSION);
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
