#include "core/io/file_bytes.hpp"

#include <new>

#include "core/io/regular_file.hpp"

namespace qkv {

Expected<std::string> readFileBytes(const std::string& path, std::size_t maxBytes, std::string_view what)
{
    const std::string forWhat = what.empty() ? std::string() : " for " + std::string(what);
    if (path.empty()) return Error{"no file name given" + forWhat};
    // Regular files only, opened without blocking (a FIFO or /dev/zero is refused here).
    Expected<RegularFileReader> file = RegularFileReader::open(path);
    if (!file) return Error{file.error()};

    // The size comes from the open file itself (not a separate stat), so a file replaced
    // between the two calls cannot make us read past what we allocated.
    const std::uint64_t size = file->size();
    if (size > maxBytes)
        return Error{path + ": is too large" + forWhat + " (" + std::to_string(size) + " bytes; the limit is " +
                     std::to_string(maxBytes) + ")"};

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
