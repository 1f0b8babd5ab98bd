#pragma once
// `qkv-studio export ...`: parses the command line, computes, writes. No display needed.

namespace qkv::app {

// Exit status: 0 written; 1 a file could not be read, computed or written (nothing partial is
// left at --out); 2 a bad argument (the one-line message names it).
int runExportCommand(int argc, char** argv);

}  // namespace qkv::app
