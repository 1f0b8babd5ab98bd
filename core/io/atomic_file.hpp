#pragma once
// Writes a file so that readers see either the old file or the complete new one, never a
// partial one: data goes to a temporary file beside the target, which is renamed over the
// target on commit(). A writer destroyed without commit() removes its temporary file, and so
// does a SIGINT/SIGTERM once removeTemporariesOnSignals() is installed (temporary_files.hpp).
//
// Only regular files are replaced (fileWriteTarget in regular_file.hpp): a folder, a FIFO, a
// device or a socket at the path is refused before anything is written. A symbolic link is
// kept and the file it leads to is replaced; a replaced file keeps its permission bits.

#include <cstdio>
#include <string>
#include <string_view>

#include "core/common/expected.hpp"
#include "core/io/temporary_files.hpp"

namespace qkv {

class AtomicFile {
public:
    AtomicFile() = default;
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    // Creates the temporary file. Fails (with the path and the reason) when the path is empty
    // or not a regular file, or when the folder does not exist or is not writable.
    Status open(const std::string& path);
    // Buffered writes; the first failure is remembered and reported by commit().
    void write(const void* data, std::size_t bytes);
    void write(std::string_view text) { write(text.data(), text.size()); }
    // Flushes, syncs and renames over the target (checking once more that it is still a
    // regular file or absent).
    Status commit();

    const std::string& path() const { return path_; }

private:
    void discard();

    std::string path_;             // as given (messages name it)
    std::string target_;           // what is replaced: path_, or the file a link leads to
    std::string temporaryPath_;
    TemporaryRegistration registration_;
    std::FILE* file_ = nullptr;
    std::string firstError_;
};

}  // namespace qkv
