#pragma once
// Writes a file so that readers see either the old file or the complete new one, never a
// partial one: data goes to a temporary file beside the target, which is renamed over the
// target on commit(). A writer destroyed without commit() removes its temporary file.

#include <cstdio>
#include <string>
#include <string_view>

#include "core/common/expected.hpp"

namespace qkv {

class AtomicFile {
public:
    AtomicFile() = default;
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    // Creates the temporary file. Fails (with the path and the system's reason) when the
    // folder does not exist or is not writable.
    Status open(const std::string& path);
    // Buffered writes; the first failure is remembered and reported by commit().
    void write(const void* data, std::size_t bytes);
    void write(std::string_view text) { write(text.data(), text.size()); }
    // Flushes, syncs and renames over the target.
    Status commit();

    const std::string& path() const { return path_; }

private:
    void discard();

    std::string path_;
    std::string temporaryPath_;
    std::FILE* file_ = nullptr;
    std::string firstError_;
};

}  // namespace qkv
