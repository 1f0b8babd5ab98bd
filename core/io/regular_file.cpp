#include "core/io/regular_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace qkv {

namespace {

std::string reason(int error) { return std::strerror(error); }

PathKind kindOf(const struct stat& info)
{
    if (S_ISREG(info.st_mode)) return PathKind::Regular;
    if (S_ISDIR(info.st_mode)) return PathKind::Folder;
    if (S_ISLNK(info.st_mode)) return PathKind::SymbolicLink;
    if (S_ISFIFO(info.st_mode)) return PathKind::Fifo;
    if (S_ISCHR(info.st_mode) || S_ISBLK(info.st_mode)) return PathKind::Device;
    if (S_ISSOCK(info.st_mode)) return PathKind::Socket;
    return PathKind::Other;
}

// The kind, and the errno of a failed (l)stat other than "nothing there" (0 otherwise).
std::pair<PathKind, int> examine(const std::string& path, bool followLinks)
{
    struct stat info {};
    const int failed = followLinks ? ::stat(path.c_str(), &info) : ::lstat(path.c_str(), &info);
    if (failed == 0) return {kindOf(info), 0};
    if (errno == ENOENT || errno == ENOTDIR) return {PathKind::Missing, 0};
    return {PathKind::Other, errno};
}

// "is a FIFO (named pipe), not a regular file": what a reader says about a path it refuses.
std::string notRegular(PathKind kind)
{
    if (kind == PathKind::Folder) return "is a folder, not a file";
    return "is " + std::string(pathKindWords(kind)) + ", not a regular file";
}

struct Resolved {
    std::string path;  // no symbolic link as its last component
    PathKind kind;     // never SymbolicLink
    int error;         // errno of a failed lstat, 0 otherwise
};

// Follows the last component of `path` through symbolic links (relative targets are relative
// to the link's folder), as open() would. At most 40 links, the kernel's own limit.
Expected<Resolved> followLinks(const std::string& path, const std::string& shown)
{
    std::string current = path;
    for (int hop = 0; hop <= 40; ++hop) {
        const auto [kind, error] = examine(current, false);
        if (kind != PathKind::SymbolicLink) return Resolved{current, kind, error};
        std::error_code ec;
        std::filesystem::path target = std::filesystem::read_symlink(current, ec);
        if (ec) return Error{"cannot write '" + shown + "': cannot read the symbolic link: " + ec.message()};
        if (target.is_relative()) target = std::filesystem::path(current).parent_path() / target;
        current = target.string();
    }
    return Error{"cannot write '" + shown + "': it is a loop of symbolic links"};
}

// "it is a device, not a regular file" or "it is a symbolic link to '/dev/null', which is a device".
std::string describeTarget(const std::string& path, const Resolved& resolved, const char* wanted)
{
    const std::string what = std::string(pathKindWords(resolved.kind)) + ", not " + wanted;
    if (resolved.path == path) return "it is " + what;
    return "it is a symbolic link to '" + resolved.path + "', which is " + what;
}

}  // namespace

std::string_view pathKindWords(PathKind kind)
{
    switch (kind) {
    case PathKind::Missing: return "missing";
    case PathKind::Regular: return "a regular file";
    case PathKind::Folder: return "a folder";
    case PathKind::SymbolicLink: return "a symbolic link";
    case PathKind::Fifo: return "a FIFO (named pipe)";
    case PathKind::Device: return "a device";
    case PathKind::Socket: return "a socket";
    case PathKind::Other: return "not a file or folder";
    }
    return "unknown";
}

PathKind pathKind(const std::string& path, bool followLinks) { return examine(path, followLinks).first; }

Expected<RegularFileReader> RegularFileReader::open(const std::string& path)
{
    if (path.empty()) return Error{"no file name given"};
    // 1. Before opening: never open a FIFO or a device at all (opening either can block or act).
    const auto [kind, error] = examine(path, true);
    if (kind == PathKind::Missing) return Error{path + ": does not exist"};
    if (error != 0) return Error{path + ": cannot open: " + reason(error)};
    if (kind != PathKind::Regular) return Error{path + ": " + notRegular(kind)};

    // 2. Open without blocking, and check the descriptor itself: the path may have been
    //    replaced by a FIFO since the stat (race-free from here on).
    const int descriptor = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (descriptor < 0) return Error{path + ": cannot open: " + reason(errno)};
    RegularFileReader reader(descriptor, 0);
    struct stat info {};
    if (::fstat(descriptor, &info) != 0) return Error{path + ": cannot open: " + reason(errno)};
    if (!S_ISREG(info.st_mode)) return Error{path + ": " + notRegular(kindOf(info))};
    reader.size_ = static_cast<std::uint64_t>(info.st_size);

    // 3. Regular files never block; clear the flag so reads behave as usual anyway.
    const int flags = ::fcntl(descriptor, F_GETFL);
    if (flags >= 0) ::fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK);
    return reader;
}

RegularFileReader::RegularFileReader(RegularFileReader&& other) noexcept
    : descriptor_(std::exchange(other.descriptor_, -1)), size_(other.size_)
{
}

RegularFileReader& RegularFileReader::operator=(RegularFileReader&& other) noexcept
{
    if (this != &other) {
        if (descriptor_ >= 0) ::close(descriptor_);
        descriptor_ = std::exchange(other.descriptor_, -1);
        size_ = other.size_;
    }
    return *this;
}

RegularFileReader::~RegularFileReader()
{
    if (descriptor_ >= 0) ::close(descriptor_);
}

void RegularFileReader::willNeed(std::uint64_t offset, std::uint64_t count) const
{
#if defined(POSIX_FADV_WILLNEED)
    if (offset > static_cast<std::uint64_t>(std::numeric_limits<off_t>::max()) ||
        count > static_cast<std::uint64_t>(std::numeric_limits<off_t>::max()))
        return;
    (void)::posix_fadvise(descriptor_, static_cast<off_t>(offset), static_cast<off_t>(count), POSIX_FADV_WILLNEED);
#else
    (void)offset;
    (void)count;
#endif
}

bool RegularFileReader::readAt(std::uint64_t offset, void* out, std::size_t count) const
{
    auto* bytes = static_cast<char*>(out);
    while (count > 0) {
        if (offset > static_cast<std::uint64_t>(std::numeric_limits<off_t>::max())) return false;
        const ssize_t got = ::pread(descriptor_, bytes, count, static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;  // an error, or the end of a file that shrank
        bytes += got;
        offset += static_cast<std::uint64_t>(got);
        count -= static_cast<std::size_t>(got);
    }
    return true;
}

Expected<std::string> fileWriteTarget(const std::string& path)
{
    if (path.empty()) return Error{"no output path given"};
    auto resolved = followLinks(path, path);
    if (!resolved) return Error{resolved.error()};
    if (resolved->error != 0)
        return Error{"cannot write '" + path + "': cannot examine it: " + reason(resolved->error)};
    if (resolved->kind == PathKind::Missing || resolved->kind == PathKind::Regular) return resolved->path;
    if (resolved->kind == PathKind::Folder && resolved->path == path) return Error{"cannot write '" + path + "': it is a folder"};
    return Error{"cannot write '" + path + "': " + describeTarget(path, *resolved, "a regular file")};
}

Expected<std::string> folderWriteTarget(const std::string& path)
{
    if (path.empty()) return Error{"no output path given"};
    std::string trimmed = path;
    while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
    auto resolved = followLinks(trimmed, path);
    if (!resolved) return Error{resolved.error()};
    if (resolved->error != 0)
        return Error{"cannot write '" + path + "': cannot examine it: " + reason(resolved->error)};
    if (resolved->kind == PathKind::Missing || resolved->kind == PathKind::Folder) return resolved->path;
    if (resolved->kind == PathKind::Regular && resolved->path == trimmed)
        return Error{"cannot write '" + path + "': it exists and is not a folder (the npy format writes a folder)"};
    return Error{"cannot write '" + path + "': " + describeTarget(trimmed, *resolved, "a folder")};
}

}  // namespace qkv
