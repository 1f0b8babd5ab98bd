#pragma once
// Where the app's data files are: the example sessions (examples/*.qkv.json), the lexicon
// (lexicon/lexicon.txt) and the demo model (demo-model/). Installed, they are in <prefix>/share/qkv-studio beside
// <prefix>/bin/qkv-studio; in the build tree the build copies them to <build>/share/qkv-studio,
// which is in the same place relative to <build>/app/qkv-studio. So one rule finds both:
// the executable's folder joined with the relative path the install layout gives
// (dataDirectoryFromExecutable(), "../share/qkv-studio" with the usual GNU layout).
//
// QKV_STUDIO_DATA_DIR, when set and not empty, names the folder instead (a relocated copy, or
// tests that run from a folder of their own).

#include <filesystem>
#include <string>

namespace qkv {

// "../share/qkv-studio": the data folder relative to the executable's folder.
const char* dataDirectoryFromExecutable();

// The data folder for an executable at `executable` and the value of QKV_STUDIO_DATA_DIR
// (nullptr or empty: unset). Pure: the folder need not exist.
std::filesystem::path dataDirectoryFor(const std::filesystem::path& executable, const char* environmentValue);

// This process's data folder (its executable from /proc/self/exe). Never empty.
std::filesystem::path dataDirectory();

// Its examples/ folder: the example sessions.
std::filesystem::path examplesDirectory();
// Its demo-model/ folder: docs/demo-model's checkpoint and tokenizer (a GPT-2 with induction heads).
std::filesystem::path demoModelDirectory();

// How dataDirectory() was chosen, for messages: "named by QKV_STUDIO_DATA_DIR" or "beside the
// executable".
std::string dataDirectoryOrigin();

}  // namespace qkv
