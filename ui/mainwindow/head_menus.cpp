// MainWindow's Head menu (presets and switching off, for the selected head) and Scenarios menu
// (an example's settings applied to the current document as one undo step).
#include <QMenu>
#include <QMenuBar>

#include "core/weights/head_preset.hpp"
#include "ui/document/document.hpp"
#include "ui/document/examples.hpp"
#include "ui/document/head_actions.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/main_window.hpp"

namespace qkv::ui {

void MainWindow::createHeadMenus()
{
    QMenu* headMenu = menuBar()->addMenu(tr("H&ead"));
    headMenu->addAction(tr("No head selected"))->setEnabled(false);  // replaced when shown
    // Rebuilt when shown: it acts on the selected head and shows its current preset.
    connect(headMenu, &QMenu::aboutToShow, this, [this, headMenu] {
        // clear() deletes the menu's actions but not the preset submenu of the last showing
        // (a child QMenu, with its actions): without this every showing left one behind.
        qDeleteAll(headMenu->findChildren<QMenu*>(Qt::FindDirectChildrenOnly));
        headMenu->clear();
        const qkv::Config& config = document_->config();
        const qkv::Index head = selection_->head();
        if (head >= config.headCount) {
            headMenu->addAction(tr("No head selected"))->setEnabled(false);
            return;
        }
        const qkv::HeadPreset* current = config.presetFor(head);
        QMenu* presets = headMenu->addMenu(tr("&Preset for Head %1").arg(head + 1));
        fillPresetMenu(presets, document_, head);
        QAction* remove = headMenu->addAction(tr("&Remove Preset of Head %1").arg(head + 1), this,
                                              [this, head] { document_->removePreset(head); });
        remove->setEnabled(current != nullptr);
        headMenu->addSeparator();
        addSwitchOffAction(headMenu, document_, head);
        QAction* allOn = headMenu->addAction(tr("Switch Every Head &On"), this, [this] { document_->setAblatedHeads({}); });
        allOn->setEnabled(!config.ablatedHeads.empty());
    });

    QMenu* scenarios = menuBar()->addMenu(tr("&Scenarios"));
    for (const Example& example : examples()) {
        QAction* action = scenarios->addAction(example.title, files_, [this, example] { files_->applyScenario(example); });
        action->setStatusTip(example.description + tr(" (one undo step)"));
    }
}

}  // namespace qkv::ui
