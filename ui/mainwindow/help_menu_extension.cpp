#include "ui/mainwindow/help_menu_extension.hpp"

namespace qkv::ui {

namespace {
// Set once at start-up, on the GUI thread, before any window reads it.
HelpMenuExtension& extension()
{
    static HelpMenuExtension installed;
    return installed;
}
}  // namespace

void setHelpMenuExtension(HelpMenuExtension installed) { extension() = std::move(installed); }

const HelpMenuExtension& helpMenuExtension() { return extension(); }

}  // namespace qkv::ui
