#include "core/io/atomic_folder.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/io/regular_file.hpp"

namespace qkv {

namespace {

std::string systemReason() { return std::strerror(errno); }

std::string uniqueSuffix()
{
    static thread_local std::mt19937_64 random{std::random_device{}()};
    return std::to_string(::getpid()) + "-" + std::to_string(random() % 1000000000u);
}

// Names in a folder (not "." or ".."); false when it cannot be read.
bool listFolder(const std::string& folder, std::vector<std::string>& names)
{
    DIR* dir = ::opendir(folder.c_str());
    if (!dir) return false;
    while (const dirent* entry = ::readdir(dir)) {
        const std::string_view name = entry->d_name;
        if (name != "." && name != "..") names.emplace_back(name);
    }
    ::closedir(dir);
    return true;
}

// Removes the files of a folder we own, then the folder; best effort (an entry that appeared
// since and is not a file stays, with the folder).
void removeFolderOfFiles(const std::string& folder)
{
    std::vector<std::string> names;
    if (listFolder(folder, names))
        for (const std::string& name : names) ::unlink((folder + "/" + name).c_str());
    ::rmdir(folder.c_str());
}

struct Inspection {
    std::string target;
    bool exists = false;
    mode_t mode = 0;
    std::vector<std::string> entries;
};

Expected<Inspection> inspect(const std::string& path, const AtomicFolder::EntryFilter& replaceable)
{
    Expected<std::string> target = folderWriteTarget(path);
    if (!target) return Error{target.error()};
    Inspection found;
    found.target = *target;
    struct stat info {};
    if (::stat(found.target.c_str(), &info) != 0) return found;  // absent: created on commit
    found.exists = true;
    found.mode = info.st_mode & 07777;
    if (!listFolder(found.target, found.entries))
        return Error{"cannot write '" + path + "': cannot list the folder: " + systemReason()};
    for (const std::string& name : found.entries) {
        const PathKind kind = pathKind(found.target + "/" + name, false);
        if (kind != PathKind::Regular || !replaceable(name)) {
            const std::string what = kind == PathKind::Regular ? "'" + name + "'"
                                                               : std::string(pathKindWords(kind)) + " '" + name + "'";
            return Error{"cannot write '" + path + "': the folder holds " + what +
                         ", which an earlier export did not write; choose a new or empty folder "
                         "(nothing was changed)"};
        }
    }
    return found;
}

}  // namespace

AtomicFolder::~AtomicFolder() { discard(); }

void AtomicFolder::discard()
{
    if (!temporary_.empty()) {
        removeFolderOfFiles(temporary_);
        temporary_.clear();
    }
    fileRegistrations_.clear();
    folderRegistration_.release();
}

Status AtomicFolder::check(const std::string& path, const EntryFilter& replaceable)
{
    Expected<Inspection> found = inspect(path, replaceable);
    if (!found) return Error{found.error()};
    return {};
}

Status AtomicFolder::open(const std::string& path, const EntryFilter& replaceable, Swap swap)
{
    discard();
    path_ = path;
    swap_ = swap;
    Expected<Inspection> found = inspect(path, replaceable);
    if (!found) return Error{found.error()};
    target_ = found->target;
    replacing_ = found->exists;
    earlierEntries_ = std::move(found->entries);

    for (int attempt = 0; attempt < 8; ++attempt) {
        const std::string candidate = target_ + ".tmp-" + uniqueSuffix();
        TemporaryRegistration registration(TemporaryKind::Folder, candidate);
        if (::mkdir(candidate.c_str(), 0777) != 0) {
            if (errno == EEXIST) continue;
            return Error{"cannot write '" + path + "': " + systemReason()};
        }
        temporary_ = candidate;
        folderRegistration_ = std::move(registration);
        if (replacing_) ::chmod(temporary_.c_str(), found->mode);
        return {};
    }
    return Error{"cannot write '" + path + "': no free temporary name beside it"};
}

std::string AtomicFolder::pathOf(std::string_view name) const { return temporary_ + "/" + std::string(name); }

void AtomicFolder::added(std::string_view name)
{
    fileRegistrations_.emplace_back(TemporaryKind::File, pathOf(name));
}

std::string AtomicFolder::inTermsOfPath(std::string message) const
{
    if (temporary_.empty()) return message;
    std::string shown = path_;
    while (shown.size() > 1 && shown.back() == '/') shown.pop_back();
    for (std::size_t at = message.find(temporary_); at != std::string::npos; at = message.find(temporary_, at + shown.size()))
        message.replace(at, temporary_.size(), shown);
    return message;
}

Status AtomicFolder::commit()
{
    if (temporary_.empty()) return Error{"cannot write '" + path_ + "': the folder was not opened"};
    Status status;
    if (!replacing_) {
        // Nothing to keep: the new folder takes the free name (rename fails if a non-empty
        // folder appeared there meanwhile; then nothing of it is touched).
        if (::rename(temporary_.c_str(), target_.c_str()) != 0)
            status = Error{"cannot write '" + path_ + "': " + systemReason()};
        else temporary_.clear();
    } else {
        // Once swapped, the temporary name holds the earlier files: a signal removes them too.
        for (const std::string& name : earlierEntries_) fileRegistrations_.emplace_back(TemporaryKind::File, pathOf(name));
        status = swap_ == Swap::Exchange ? swapWithEarlier() : moveEarlierAside();
    }
    if (!status) {
        discard();
        return status;
    }
    fileRegistrations_.clear();
    folderRegistration_.release();
    return {};
}

Status AtomicFolder::swapWithEarlier()
{
#if defined(__linux__) && defined(RENAME_EXCHANGE)
    // One atomic step: the new folder takes the name, the earlier one takes the temporary name.
    if (::renameat2(AT_FDCWD, temporary_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0) {
        removeFolderOfFiles(temporary_);
        temporary_.clear();
        return {};
    }
#endif
    return moveEarlierAside();  // a file system without exchange (or not Linux)
}

Status AtomicFolder::moveEarlierAside()
{
    const std::string aside = target_ + ".old-" + uniqueSuffix();
    // Registered first: a signal between the two renames puts the earlier folder back.
    TemporaryRegistration restore(TemporaryKind::Restore, aside, target_);
    std::vector<TemporaryRegistration> asideFiles;
    for (const std::string& name : earlierEntries_) asideFiles.emplace_back(TemporaryKind::File, aside + "/" + name);
    TemporaryRegistration asideFolder(TemporaryKind::Folder, aside);

    if (::rename(target_.c_str(), aside.c_str()) != 0)
        return Error{"cannot write '" + path_ + "': cannot move the earlier folder aside: " + systemReason()};
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) {
        const std::string reason = systemReason();
        // The earlier folder back, exactly as it was.
        if (::rename(aside.c_str(), target_.c_str()) != 0) {
            restore.release();
            asideFiles.clear();
            asideFolder.release();
            return Error{"cannot write '" + path_ + "': " + reason + "; the earlier folder is now '" + aside +
                         "' (" + systemReason() + ")"};
        }
        return Error{"cannot write '" + path_ + "': " + reason};
    }
    restore.release();
    temporary_.clear();
    removeFolderOfFiles(aside);
    return {};
}

}  // namespace qkv
