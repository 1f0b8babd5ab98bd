#pragma once
// The desktop application's entry point, called by app/main.cpp (which handles `export` and the
// no-display case itself).

namespace qkv::ui {

// Creates the QApplication and the main window (last session, or the built-in example) and
// runs the event loop. Returns the exit status.
int runGui(int& argc, char** argv);

}  // namespace qkv::ui
