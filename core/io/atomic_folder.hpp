#pragma once
// Writes a folder of files so that the folder at the path is either the earlier one, exactly as
// it was, or the complete new one: files go into a sibling temporary folder, which is swapped
// with the earlier folder on commit() (one atomic exchange where the file system supports it;
// otherwise the earlier folder is moved aside, the new one moved in, and the earlier one put
// back if that fails). The earlier folder is removed only after the swap. An AtomicFolder
// destroyed without commit() removes its temporary folder; so does a SIGINT/SIGTERM once
// removeTemporariesOnSignals() is installed (temporary_files.hpp).
//
// Nothing a person keeps is lost: an existing folder is replaced only when it is empty or every
// entry in it is a regular file that `replaceable` accepts (an earlier export's own files);
// anything else is refused before a byte is written. A symbolic link to a folder is kept and
// the folder it leads to is replaced; the new folder gets the earlier one's permission bits.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/expected.hpp"
#include "core/io/temporary_files.hpp"

namespace qkv {

class AtomicFolder {
public:
    using EntryFilter = std::function<bool(std::string_view name)>;
    // How commit() swaps: Exchange falls back to MoveAside where the file system cannot
    // exchange; MoveAside is there for tests of that path.
    enum class Swap { Exchange, MoveAside };

    AtomicFolder() = default;
    ~AtomicFolder();
    AtomicFolder(const AtomicFolder&) = delete;
    AtomicFolder& operator=(const AtomicFolder&) = delete;

    // What open() checks before creating anything: the path is absent, or a folder that may be
    // replaced (see above). Lets a caller refuse before long work.
    static Status check(const std::string& path, const EntryFilter& replaceable);
    // check(), then creates the temporary folder beside the target.
    Status open(const std::string& path, const EntryFilter& replaceable, Swap swap = Swap::Exchange);

    // Where to write the file `name` (inside the temporary folder).
    std::string pathOf(std::string_view name) const;
    // `name` is complete in the temporary folder (registered for removal on a signal).
    void added(std::string_view name);
    // A failed write's message with the temporary folder's name replaced by the path given to
    // open(), so people read the path they typed.
    std::string inTermsOfPath(std::string message) const;

    // Swaps the new folder in and removes the earlier one.
    Status commit();

    const std::string& path() const { return path_; }

private:
    void discard();
    Status swapWithEarlier();
    Status moveEarlierAside();

    std::string path_;       // as given
    std::string target_;     // the folder replaced: path_ without trailing '/', or a link's folder
    std::string temporary_;  // the sibling being filled
    Swap swap_ = Swap::Exchange;
    bool replacing_ = false;                  // a folder exists at target_
    std::vector<std::string> earlierEntries_;  // its file names, seen by open()
    TemporaryRegistration folderRegistration_;
    std::vector<TemporaryRegistration> fileRegistrations_;
};

}  // namespace qkv
