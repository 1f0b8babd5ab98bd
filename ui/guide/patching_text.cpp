#include "ui/guide/patching_text.hpp"

#include "ui/mainwindow/main_window.hpp"
#include "ui/patching/patching_data.hpp"
#include "ui/patching/patching_panel.hpp"

namespace qkv::ui {

QString patchingText(const MainWindow& window)
{
    const auto* panel = window.findChild<PatchingPanel*>();
    if (!panel) return {};
    if (!panel->grids() || !panel->prompts()) return panel->problem();
    return headsSentence(*panel->prompts(), *panel->grids()) + QLatin1Char(' ') +
           residualSentence(*panel->prompts(), *panel->grids());
}

}  // namespace qkv::ui
