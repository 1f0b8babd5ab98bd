// MainWindow's Head menu (presets and switching off, for the selected head) and Scenarios menu
// (an example's settings applied to the current document as one undo step).
#include <QActionGroup>
#include <QMenu>
#include <QMenuBar>

#include "core/weights/head_preset.hpp"
#include "ui/document/document.hpp"
#include "ui/document/examples.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/main_window.hpp"

namespace qkv::ui {
namespace {

QString presetMenuText(qkv::HeadPresetKind kind, qkv::Index rank)
{
    const std::string_view title = qkv::presetTitle(kind);
    QString text = QString::fromUtf8(title.data(), static_cast<qsizetype>(title.size()));
    text[0] = text[0].toUpper();
    if (kind == qkv::HeadPresetKind::LowRank) text += MainWindow::tr(" (r = %1)").arg(rank);
    return text;
}

QString presetTip(qkv::HeadPresetKind kind)
{
    switch (kind) {
    case qkv::HeadPresetKind::Uniform: return MainWindow::tr("W_i^Q = 0: every visible key gets the same weight");
    case qkv::HeadPresetKind::SameToken: return MainWindow::tr("Attends to the keys holding the query's word");
    case qkv::HeadPresetKind::PreviousToken:
        return MainWindow::tr("Attends to key t-1 (reads the sinusoidal positions; scales token embeddings by 0.1)");
    case qkv::HeadPresetKind::NextToken:
        return MainWindow::tr("Attends to key t+1 (reads the sinusoidal positions; scales token embeddings by 0.1)");
    case qkv::HeadPresetKind::SamePosition:
        return MainWindow::tr("Attends to the key at the query's index (scales token embeddings by 0.1)");
    case qkv::HeadPresetKind::SameMeaning:
        return MainWindow::tr("Attends to the keys that mean the same, across languages (turns on meaning embeddings)");
    case qkv::HeadPresetKind::LowRank: return MainWindow::tr("A random head whose W_i has rank r < d_k");
    case qkv::HeadPresetKind::Random: return MainWindow::tr("The seed's random weights for this head");
    }
    return {};
}

}  // namespace

void MainWindow::createHeadMenus()
{
    QMenu* headMenu = menuBar()->addMenu(tr("H&ead"));
    headMenu->addAction(tr("No head selected"))->setEnabled(false);  // replaced when shown
    // Rebuilt when shown: it acts on the selected head and shows its current preset.
    connect(headMenu, &QMenu::aboutToShow, this, [this, headMenu] {
        headMenu->clear();
        const qkv::Config& config = document_->config();
        const qkv::Index head = selection_->head();
        if (head >= config.headCount) {
            headMenu->addAction(tr("No head selected"))->setEnabled(false);
            return;
        }
        const qkv::HeadPreset* current = config.presetFor(head);
        QMenu* presets = headMenu->addMenu(tr("&Preset for Head %1").arg(head + 1));
        auto* group = new QActionGroup(presets);
        const qkv::Index d_k = config.d_k();
        const qkv::Index rank = std::max<qkv::Index>(1, d_k / 8);
        for (const qkv::HeadPresetKind kind : qkv::allPresetKinds()) {
            QAction* action = presets->addAction(presetMenuText(kind, rank), this, [this, head, kind, rank] {
                qkv::HeadPreset preset;
                preset.head = head;
                preset.kind = kind;
                preset.rank = rank;
                document_->applyPreset(preset);
            });
            action->setCheckable(true);
            action->setChecked(current && current->kind == kind);
            action->setStatusTip(presetTip(kind));
            action->setEnabled(kind != qkv::HeadPresetKind::LowRank || d_k > 1);
            group->addAction(action);
        }
        QAction* remove = headMenu->addAction(tr("&Remove Preset of Head %1").arg(head + 1), this,
                                              [this, head] { document_->removePreset(head); });
        remove->setEnabled(current != nullptr);
        headMenu->addSeparator();
        QAction* off = headMenu->addAction(tr("Switch &Off Head %1").arg(head + 1));
        off->setCheckable(true);
        off->setChecked(config.isAblated(head));
        off->setStatusTip(tr("Zero the head's block of Concat before W^O: how much does the output need it?"));
        connect(off, &QAction::toggled, this, [this, head](bool on) {
            std::vector<qkv::Index> heads = document_->config().ablatedHeads;
            if (on) heads.push_back(head);
            else std::erase(heads, head);
            document_->setAblatedHeads(heads);
        });
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
