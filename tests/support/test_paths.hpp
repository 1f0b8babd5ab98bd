#pragma once
// Where the tests find their fixtures, the build's data folder and the built program. The paths
// are compiled into one generated file (tests/CMakeLists.txt), not into every test's compile
// command: a command line that names this clone's folder differs in every clone, and ccache
// could not share a test's object between two clones of the same commit on one machine.

namespace qkv {

const char* testDataDir();       // <source>/tests/data: fixtures and the scripts that made them
const char* sourceDir();         // the repository
const char* buildDataDir();      // the build tree's data folder (examples, lexicon; cmake/InstallLayout.cmake)
const char* studioExecutable();  // the built qkv-studio program (empty when the UI is not built)

}  // namespace qkv
