#include "core/text/regular_file.hpp"

#include <new>

#include "core/io/regular_file.hpp"

namespace qkv {

Expected<std::string> readRegularFile(const std::string& path, std::size_t maxBytes, std::string_view what)
{
    if (path.empty()) return Error{"no file name given for " + std::string(what)};
    // The one opening rule (core/io/regular_file.hpp): regular files only, never blocking.
    Expected<RegularFileReader> file = RegularFileReader::open(path);
    if (!file) return Error{file.error()};
    const std::uint64_t size = file->size();
    if (size > maxBytes)
        return Error{path + ": is too large for " + std::string(what) + " (" + std::to_string(size) +
                     " bytes; the limit is " + std::to_string(maxBytes) + ")"};
    std::string bytes;
    try {
        bytes.resize(static_cast<std::size_t>(size));
    } catch (const std::bad_alloc&) {
        return Error{path + ": not enough memory to read " + std::to_string(size) + " bytes"};
    }
    if (!file->readAt(0, bytes.data(), bytes.size()))
        return Error{path + ": cannot read (a read failed, or the file shrank while it was being read)"};
    return bytes;
}

}  // namespace qkv
