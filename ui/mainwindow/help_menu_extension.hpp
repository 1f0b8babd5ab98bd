#pragma once
// The Help menu's entries that drive the window from above it: the student guide (ui/guide)
// steps through MainWindow, ViewTabs and DocumentFiles, so this folder cannot include it. The
// start-up (ui/startup/window_extensions.hpp) sets the extension before the first window is made;
// a window made without one has only the About entries.

#include <functional>

class QMenu;
class QObject;

namespace qkv::ui {

class MainWindow;

// Adds its actions to `help` and returns the object behind them, which the window deletes
// first when it closes (before it stops being a MainWindow), or null.
using HelpMenuExtension = std::function<QObject*(MainWindow* window, QMenu* help)>;

void setHelpMenuExtension(HelpMenuExtension extension);
const HelpMenuExtension& helpMenuExtension();

}  // namespace qkv::ui
