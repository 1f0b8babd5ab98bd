#pragma once
// `qkv-studio train ...`: trains the factored and/or full variant of a small transformer on one
// task and writes their sessions, the log and the report into a new folder. No display needed.

namespace qkv::app {

// Exit status: 0 written; 1 the folder cannot be written (checked before any training), the
// pairs file cannot be read, or a write failed (nothing is left at --out); 2 a bad argument
// (the one-line message names the option).
int runTrainCommand(int argc, char** argv);

}  // namespace qkv::app
