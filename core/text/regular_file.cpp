#include "core/text/regular_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#define QKV_HAVE_POSIX_OPEN 1
#endif

namespace qkv {

namespace {

std::string tooLarge(const std::string& path, std::size_t size, std::size_t maxBytes, std::string_view what)
{
    return path + ": is too large for " + std::string(what) + " (" + std::to_string(size) +
           " bytes; the limit is " + std::to_string(maxBytes) + ")";
}

#ifdef QKV_HAVE_POSIX_OPEN
struct Descriptor {
    int fd = -1;
    ~Descriptor()
    {
        if (fd >= 0) ::close(fd);
    }
};

Expected<std::string> readOpenedFile(const std::string& path, std::size_t maxBytes, std::string_view what)
{
    // O_NONBLOCK: should the path have become a FIFO since the check, open() returns at once.
    Descriptor file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
    if (file.fd < 0) return Error{path + ": cannot open: " + std::strerror(errno)};
    struct stat info {};
    if (::fstat(file.fd, &info) != 0) return Error{path + ": cannot read: " + std::strerror(errno)};
    if (!S_ISREG(info.st_mode)) return Error{path + ": is not a regular file (a pipe, device or socket)"};
    const auto size = static_cast<std::size_t>(info.st_size);
    if (size > maxBytes) return Error{tooLarge(path, size, maxBytes, what)};

    std::string bytes;
    try {
        bytes.resize(size);
    } catch (const std::bad_alloc&) {
        return Error{path + ": not enough memory to read " + std::to_string(size) + " bytes"};
    }
    std::size_t got = 0;
    while (got < size) {
        const ::ssize_t n = ::read(file.fd, bytes.data() + got, size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return Error{path + ": cannot read: " + std::strerror(errno)};
        if (n == 0) return Error{path + ": the file shrank while it was being read"};
        got += static_cast<std::size_t>(n);
    }
    return bytes;
}
#else
Expected<std::string> readOpenedFile(const std::string& path, std::size_t maxBytes, std::string_view what)
{
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return Error{path + ": cannot read: " + ec.message()};
    if (size > maxBytes) return Error{tooLarge(path, static_cast<std::size_t>(size), maxBytes, what)};
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error{path + ": cannot open"};
    std::string bytes;
    try {
        bytes.resize(static_cast<std::size_t>(size));
    } catch (const std::bad_alloc&) {
        return Error{path + ": not enough memory to read " + std::to_string(size) + " bytes"};
    }
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (static_cast<std::size_t>(in.gcount()) != bytes.size())
        return Error{path + ": the file shrank while it was being read"};
    return bytes;
}
#endif

}  // namespace

Expected<std::string> readRegularFile(const std::string& path, std::size_t maxBytes, std::string_view what)
{
    if (path.empty()) return Error{"no file name given for " + std::string(what)};
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (status.type() == std::filesystem::file_type::not_found) return Error{path + ": does not exist"};
    if (ec) return Error{path + ": cannot open: " + ec.message()};
    if (std::filesystem::is_directory(status)) return Error{path + ": is a folder, not a file"};
    if (!std::filesystem::is_regular_file(status))
        return Error{path + ": is not a regular file (a pipe, device or socket)"};
    return readOpenedFile(path, maxBytes, what);
}

}  // namespace qkv
