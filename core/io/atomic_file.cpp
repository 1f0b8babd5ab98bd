#include "core/io/atomic_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/io/regular_file.hpp"

namespace qkv {

namespace {

std::string systemReason() { return std::strerror(errno); }

// A name beside `target`, unique enough for concurrent writers of the same target.
std::string temporaryNameFor(const std::string& target)
{
    static thread_local std::mt19937_64 random{std::random_device{}()};
    return target + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(random() % 1000000000u);
}

}  // namespace

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard()
{
    if (file_) {
        std::fclose(file_);
        file_ = nullptr;
    }
    if (!temporaryPath_.empty()) {
        ::unlink(temporaryPath_.c_str());
        temporaryPath_.clear();
    }
    registration_.release();
}

Status AtomicFile::open(const std::string& path)
{
    discard();
    path_ = path;
    firstError_.clear();
    Expected<std::string> target = fileWriteTarget(path);
    if (!target) return Error{target.error()};
    target_ = std::move(*target);

    // A replaced file keeps its permissions (a private file must not become world-readable).
    struct stat existing {};
    const bool replacing = ::stat(target_.c_str(), &existing) == 0;

    for (int attempt = 0; attempt < 8; ++attempt) {
        const std::string candidate = temporaryNameFor(target_);
        // Registered before it exists, so no moment passes in which a signal would leave it.
        TemporaryRegistration registration(TemporaryKind::File, candidate);
        const int descriptor = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (descriptor < 0) {
            if (errno == EEXIST) continue;  // another writer's name: never touch it
            return Error{"cannot write '" + path + "': " + systemReason()};
        }
        temporaryPath_ = candidate;
        registration_ = std::move(registration);
        if (replacing) ::fchmod(descriptor, existing.st_mode & 07777);
        file_ = ::fdopen(descriptor, "wb");
        if (!file_) {
            const std::string reason = systemReason();
            ::close(descriptor);
            discard();
            return Error{"cannot write '" + path + "': " + reason};
        }
        return {};
    }
    return Error{"cannot write '" + path + "': no free temporary name beside it"};
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
        // Once more just before the rename: something else may have appeared at the target
        // while we wrote (the window left is the rename itself).
        const PathKind kind = pathKind(target_, false);
        if (kind != PathKind::Missing && kind != PathKind::Regular)
            firstError_ = "cannot write '" + path_ + "': it is now " + std::string(pathKindWords(kind)) +
                          ", not a regular file";
    }
    if (firstError_.empty()) {
        if (::rename(temporaryPath_.c_str(), target_.c_str()) != 0)
            firstError_ = "cannot write '" + path_ + "': " + systemReason();
        else {
            temporaryPath_.clear();
            registration_.release();
        }
    }
    if (!firstError_.empty()) {
        const std::string error = firstError_;
        discard();
        return Error{error};
    }
    return {};
}

}  // namespace qkv
