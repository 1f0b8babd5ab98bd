#pragma once
// Only regular files are read or replaced (docs/architecture.md, "Rules learned on this machine"): fopen on a FIFO blocks forever,
// a device reads without end (/dev/zero), and an atomic rename over a device node replaces the
// node. Readers open files here; writers ask here where a write may land.
//
// Messages name the path and say what is there: "is a FIFO (named pipe), not a regular file",
// "is a device, not a regular file", "is a folder, not a file".

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/common/expected.hpp"

namespace qkv {

// What a path names, without following a final symbolic link (lstat) unless asked to.
enum class PathKind { Missing, Regular, Folder, SymbolicLink, Fifo, Device, Socket, Other };

// "a regular file", "a folder", "a FIFO (named pipe)", "a device", "a socket", ...
std::string_view pathKindWords(PathKind kind);

// lstat (followLinks false) or stat. Missing when nothing is there (or a parent is not a folder).
PathKind pathKind(const std::string& path, bool followLinks);

// A regular file opened for reading, closed on destruction. Opening never blocks: the path is
// checked with stat first, opened with O_NONBLOCK, and checked again with fstat on the open
// descriptor (so a FIFO swapped in between is refused too); then O_NONBLOCK is cleared.
class RegularFileReader {
public:
    // Refuses an empty path ("no file name given"), a missing file ("<path>: does not exist"),
    // folders, FIFOs, devices and sockets ("<path>: is a device, not a regular file").
    static Expected<RegularFileReader> open(const std::string& path);

    RegularFileReader(RegularFileReader&& other) noexcept;
    RegularFileReader& operator=(RegularFileReader&& other) noexcept;
    RegularFileReader(const RegularFileReader&) = delete;
    RegularFileReader& operator=(const RegularFileReader&) = delete;
    ~RegularFileReader();

    // The size when it was opened (from fstat on the descriptor).
    std::uint64_t size() const { return size_; }
    // Exactly `count` bytes at `offset`; false on a read error or when the file ends first
    // (it shrank). Does not move any shared position (pread).
    bool readAt(std::uint64_t offset, void* out, std::size_t count) const;
    // Tells the system that [offset, offset + count) will be read soon (posix_fadvise WILLNEED): it
    // starts reading those bytes into its page cache while the caller does other work. A hint; may
    // block while the reads are queued, so callers on a compute path issue it from another thread.
    void willNeed(std::uint64_t offset, std::uint64_t count) const;

private:
    RegularFileReader(int descriptor, std::uint64_t size) : descriptor_(descriptor), size_(size) {}

    int descriptor_ = -1;
    std::uint64_t size_ = 0;
};

// Where an atomic write of the file `path` lands: `path` itself when it is a regular file or
// absent, or, for a symbolic link, the file the link (chain) leads to: the link is kept and its
// target replaced (as QSaveFile does). Refuses folders, FIFOs, devices, sockets and link loops
// with "cannot write '<path>': it is a device, not a regular file".
Expected<std::string> fileWriteTarget(const std::string& path);

// The same for a folder written as a whole (the npy export): `path` when it is a folder or
// absent, or the folder a symbolic link leads to. Trailing slashes are ignored. Refuses regular
// files and every other kind.
Expected<std::string> folderWriteTarget(const std::string& path);

}  // namespace qkv
