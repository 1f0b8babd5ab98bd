#pragma once
// Whether a file or folder is there, as the readers ask before opening optional files.

#include <filesystem>

namespace qkv {

// True when something exists at `path`. False also when that cannot be told (a folder on the way
// that may not be read): a reader then says the file is missing, never throws.
bool pathExists(const std::filesystem::path& path);

}  // namespace qkv
