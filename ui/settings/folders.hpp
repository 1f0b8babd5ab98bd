#pragma once
// Where a dialog starts. A remembered or standard folder may not exist: a fresh account has no
// ~/Pictures or ~/Documents until a desktop makes them, and a remembered folder may have been
// deleted or unmounted. A save there fails for a folder the user never chose, and a file dialog
// opened there falls back to wherever the process happens to run.

#include <QString>

#include <initializer_list>

namespace qkv::ui {

// The first of `candidates` that is an existing folder (empty ones are passed over), else the
// home folder.
QString firstExistingFolder(std::initializer_list<QString> candidates);

}  // namespace qkv::ui
