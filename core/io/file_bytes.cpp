#include "core/io/file_bytes.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>

namespace qkv {

namespace {

struct FileCloser {
    void operator()(std::FILE* file) const { std::fclose(file); }
};

}  // namespace

Expected<std::vector<std::byte>> readFileBytes(const std::string& path, std::size_t maxBytes)
{
    if (path.empty()) return Error{"no file name given"};
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return Error{path + ": is a folder, not a file"};
    std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
    if (!file) return Error{path + ": cannot open: " + std::strerror(errno)};

    // The size comes from the open file itself (not a separate stat), so a file replaced
    // between the two calls cannot make us read past what we allocated.
    if (std::fseek(file.get(), 0, SEEK_END) != 0)
        return Error{path + ": cannot read: " + std::strerror(errno)};
    const long end = std::ftell(file.get());
    if (end < 0) return Error{path + ": cannot read: " + std::strerror(errno)};
    if (static_cast<unsigned long>(end) > maxBytes)
        return Error{path + ": is too large (" + std::to_string(end) + " bytes; the limit is " +
                     std::to_string(maxBytes) + ")"};
    std::rewind(file.get());

    std::vector<std::byte> bytes;
    try {
        bytes.resize(static_cast<std::size_t>(end));
    } catch (const std::bad_alloc&) {
        return Error{path + ": not enough memory to read " + std::to_string(end) + " bytes"};
    }
    const std::size_t got = bytes.empty() ? 0 : std::fread(bytes.data(), 1, bytes.size(), file.get());
    if (got != bytes.size()) {
        if (std::ferror(file.get()))
            return Error{path + ": cannot read: " + std::strerror(errno)};
        return Error{path + ": the file shrank while it was being read"};
    }
    return bytes;
}

}  // namespace qkv
