#pragma once
// Reads a small text file that must be a regular file (tokenizer files: vocab.txt, vocab.json,
// merges.txt, tokenizer_config.json).
//
// Opened by core/io/regular_file.hpp's RegularFileReader: a FIFO, a device or a socket is
// refused at once instead of blocking forever (design.md section 5) or reading an endless
// stream.

#include <cstddef>
#include <string>
#include <string_view>

#include "core/common/expected.hpp"

namespace qkv {

// The whole file as bytes. Fails with "<path>: <reason>" when the path is empty, missing, a
// folder, not a regular file, larger than `maxBytes` (the message names `what`, e.g. "a
// vocabulary", and the limit), or cannot be read completely. Never throws.
Expected<std::string> readRegularFile(const std::string& path, std::size_t maxBytes, std::string_view what);

}  // namespace qkv
