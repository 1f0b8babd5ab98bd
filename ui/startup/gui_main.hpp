#pragma once

#include <QString>
// The desktop application's entry point, called by app/main.cpp (which handles `export` and the
// no-display case itself).

namespace qkv::ui {

// Creates the QApplication and the main window (last session, or the built-in example) and
// runs the event loop. Returns the exit status.
// `sessionFile`, when not empty, is opened once the window shows (a bad file is reported in the
// status bar; unsaved work restored from the autosave is asked about first). `notOpened` names
// further sessions given at once (a file manager's selection), which the status bar then says
// were not opened.
int runGui(int& argc, char** argv, const QString& sessionFile = {}, const QString& notOpened = {});

}  // namespace qkv::ui
