#pragma once
// `qkv-studio figure ...`: draws one of the app's registered figures (ui/figures/figure.hpp)
// to PNG, SVG or PDF without a display and without any Qt environment variable; `--list`
// prints every figure's name. The session comes from --session and/or the export command's
// options (app/export_arguments.hpp).

namespace qkv::app {

// Exit status: 0 written (or listed); 1 a file could not be read, computed, drawn or written
// (nothing is left at --out); 2 a bad argument (the one-line message names it).
int runFigureCommand(int argc, char** argv);

}  // namespace qkv::app
