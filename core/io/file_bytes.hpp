#pragma once
// Whole-file reads for every reader in core (sessions, .npy, JSON configurations, tokenizer
// files), with messages that name the file.

#include <cstddef>
#include <string>
#include <string_view>

#include "core/common/expected.hpp"

namespace qkv {

// Reads the whole file (its bytes, as they are, in a std::string). Fails with "<path>: <reason>"
// when the path is empty, does not exist, is not a regular file (a folder, FIFO, device or
// socket: refused without blocking, see regular_file.hpp), is larger than `maxBytes`, or cannot
// be read completely. `what` says what the file is for ("a vocabulary"), when the caller knows:
// then the messages name it ("is too large for a vocabulary (...)", "no file name given for a
// vocabulary"). Never throws (allocation failure is reported as an error too).
Expected<std::string> readFileBytes(const std::string& path, std::size_t maxBytes = std::size_t{1} << 34,
                                    std::string_view what = {});

}  // namespace qkv
