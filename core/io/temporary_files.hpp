#pragma once
// The temporaries this process is writing, listed where a signal handler can read them, so that
// SIGINT, SIGTERM or SIGHUP during a write leave nothing partial behind (AtomicFile and
// AtomicFolder register theirs).
//
// Async-signal-safe by construction: a fixed table of slots (no allocation, no lock) that the
// handler claims with an atomic exchange, and only rename, unlink and rmdir in the handler,
// which POSIX lists as async-signal-safe.

#include <string>

namespace qkv {

enum class TemporaryKind {
    File,     // removed (unlink)
    Folder,   // removed (rmdir) after every File entry, so empty by then
    Restore,  // an earlier folder moved aside: renamed back to its place first (if still free)
};

// Registered for as long as the object lives (or until release()). Move-only. A path longer
// than the table's slots (4095 bytes) or a full table (128 entries) is not registered: the
// temporary is then still removed on every failure, just not on a signal.
class TemporaryRegistration {
public:
    TemporaryRegistration() = default;
    // `restoreTo` only for TemporaryKind::Restore: where `path` goes back to.
    TemporaryRegistration(TemporaryKind kind, const std::string& path, const std::string& restoreTo = {});
    TemporaryRegistration(TemporaryRegistration&& other) noexcept;
    TemporaryRegistration& operator=(TemporaryRegistration&& other) noexcept;
    TemporaryRegistration(const TemporaryRegistration&) = delete;
    TemporaryRegistration& operator=(const TemporaryRegistration&) = delete;
    ~TemporaryRegistration() { release(); }

    // No longer a temporary: committed, or removed by its owner.
    void release();
    bool registered() const { return slot_ >= 0; }

private:
    int slot_ = -1;
};

// Installs a handler for SIGINT, SIGTERM and SIGHUP (each unless it is ignored, as nohup does)
// that removes every registered temporary, then ends the process by the same signal, so a shell
// sees the conventional status (130, 143, 129). Call once, early; installing twice is harmless.
void removeTemporariesOnSignals();

// What the handler does (restores, then files, then folders); callable from tests. Each entry
// is handled once: it is no longer registered afterwards.
void removeRegisteredTemporaries();

// How many entries are registered now (for tests).
int registeredTemporaryCount();

}  // namespace qkv
