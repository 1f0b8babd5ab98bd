#include "core/io/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include <unistd.h>

namespace qkv {

namespace {

std::string systemReason() { return std::strerror(errno); }

}  // namespace

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard()
{
    if (file_) {
        std::fclose(file_);
        file_ = nullptr;
    }
    if (!temporaryPath_.empty()) {
        std::error_code ignored;
        std::filesystem::remove(temporaryPath_, ignored);
        temporaryPath_.clear();
    }
}

Status AtomicFile::open(const std::string& path)
{
    discard();
    path_ = path;
    firstError_.clear();
    if (path.empty()) return Error{"no output path given"};
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return Error{"cannot write '" + path + "': it is a folder"};

    // A name unique enough for concurrent writers of the same target.
    std::random_device entropy;
    temporaryPath_ = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(entropy());
    file_ = std::fopen(temporaryPath_.c_str(), "wb");
    if (!file_) {
        const std::string reason = systemReason();
        temporaryPath_.clear();
        return Error{"cannot write '" + path + "': " + reason};
    }
    return {};
}

void AtomicFile::write(const void* data, std::size_t bytes)
{
    if (!file_ || !firstError_.empty() || bytes == 0) return;
    if (std::fwrite(data, 1, bytes, file_) != bytes)
        firstError_ = "cannot write '" + path_ + "': " + systemReason();
}

Status AtomicFile::commit()
{
    if (!file_) return Error{"cannot write '" + path_ + "': the file was not opened"};
    if (firstError_.empty() && std::fflush(file_) != 0)
        firstError_ = "cannot write '" + path_ + "': " + systemReason();
    if (firstError_.empty() && ::fsync(::fileno(file_)) != 0)
        firstError_ = "cannot write '" + path_ + "': " + systemReason();
    if (std::fclose(file_) != 0 && firstError_.empty())
        firstError_ = "cannot write '" + path_ + "': " + systemReason();
    file_ = nullptr;
    if (firstError_.empty()) {
        std::error_code ec;
        std::filesystem::rename(temporaryPath_, path_, ec);
        if (ec) firstError_ = "cannot write '" + path_ + "': " + ec.message();
        else temporaryPath_.clear();
    }
    if (!firstError_.empty()) {
        const std::string error = firstError_;
        discard();
        return Error{error};
    }
    return {};
}

}  // namespace qkv
