#pragma once
// Whole-file reads for the readers in core/io, with messages that name the file.

#include <cstddef>
#include <string>
#include <vector>

#include "core/common/expected.hpp"

namespace qkv {

// Reads the whole file. Fails with "<path>: <reason>" when the path is empty, does not exist,
// is not a regular file (a folder, FIFO, device or socket: refused without blocking, see
// regular_file.hpp), is larger than `maxBytes`, or cannot be read completely. Never throws
// (allocation failure is reported as an error too).
Expected<std::vector<std::byte>> readFileBytes(const std::string& path,
                                               std::size_t maxBytes = std::size_t{1} << 34);

}  // namespace qkv
