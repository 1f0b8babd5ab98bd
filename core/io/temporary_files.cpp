#include "core/io/temporary_files.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <utility>

#include <unistd.h>

namespace qkv {

namespace {

// A slot's life: Free -> Writing (its owner fills it) -> Active -> Free (released), or
// Active -> Claimed (the handler took it; the owner's release then leaves it alone).
enum SlotState : int { Free = 0, Writing = 1, Active = 2, Claimed = 3 };

constexpr int kSlots = 128;
constexpr std::size_t kPathBytes = 4096;

struct Slot {
    std::atomic<int> state{Free};
    TemporaryKind kind = TemporaryKind::File;
    char path[kPathBytes];
    char restoreTo[kPathBytes];
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");

// Zero-initialised static storage: untouched pages cost no memory.
Slot slots[kSlots];

bool copyPath(char (&into)[kPathBytes], const std::string& path)
{
    if (path.size() >= kPathBytes) return false;
    std::memcpy(into, path.c_str(), path.size() + 1);
    return true;
}

void handleSignal(int signal)
{
    const int savedErrno = errno;
    removeRegisteredTemporaries();
    errno = savedErrno;
    // SA_RESETHAND restored the default action; the signal is blocked until this returns, then
    // ends the process the conventional way (the parent sees "killed by SIGINT").
    std::raise(signal);
}

}  // namespace

TemporaryRegistration::TemporaryRegistration(TemporaryKind kind, const std::string& path, const std::string& restoreTo)
{
    for (int i = 0; i < kSlots; ++i) {
        int expected = Free;
        if (!slots[i].state.compare_exchange_strong(expected, Writing, std::memory_order_acquire)) continue;
        Slot& slot = slots[i];
        slot.kind = kind;
        if (!copyPath(slot.path, path) || !copyPath(slot.restoreTo, restoreTo)) {
            slot.state.store(Free, std::memory_order_release);
            return;
        }
        slot.state.store(Active, std::memory_order_release);
        slot_ = i;
        return;
    }
}

TemporaryRegistration::TemporaryRegistration(TemporaryRegistration&& other) noexcept
    : slot_(std::exchange(other.slot_, -1))
{
}

TemporaryRegistration& TemporaryRegistration::operator=(TemporaryRegistration&& other) noexcept
{
    if (this != &other) {
        release();
        slot_ = std::exchange(other.slot_, -1);
    }
    return *this;
}

void TemporaryRegistration::release()
{
    if (slot_ < 0) return;
    int expected = Active;
    // Claimed: the handler is removing it right now; it frees the slot itself.
    slots[slot_].state.compare_exchange_strong(expected, Free, std::memory_order_release);
    slot_ = -1;
}

void removeRegisteredTemporaries()
{
    bool mine[kSlots] = {};
    for (int i = 0; i < kSlots; ++i) {
        int expected = Active;
        mine[i] = slots[i].state.compare_exchange_strong(expected, Claimed, std::memory_order_acq_rel);
    }
    // Restores first (an earlier folder goes back before anything under it could be touched),
    // then files, then the folders that held them.
    for (const TemporaryKind pass : {TemporaryKind::Restore, TemporaryKind::File, TemporaryKind::Folder}) {
        for (int i = 0; i < kSlots; ++i) {
            if (!mine[i] || slots[i].kind != pass) continue;
            if (pass == TemporaryKind::Restore) ::rename(slots[i].path, slots[i].restoreTo);
            else if (pass == TemporaryKind::File) ::unlink(slots[i].path);
            else ::rmdir(slots[i].path);
        }
    }
    for (int i = 0; i < kSlots; ++i)
        if (mine[i]) slots[i].state.store(Free, std::memory_order_release);
}

int registeredTemporaryCount()
{
    int count = 0;
    for (const Slot& slot : slots) count += slot.state.load(std::memory_order_acquire) == Active ? 1 : 0;
    return count;
}

void removeTemporariesOnSignals()
{
    for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction previous {};
        if (::sigaction(signal, nullptr, &previous) != 0) continue;
        if (previous.sa_handler == SIG_IGN) continue;  // nohup, or a background job: keep ignoring
        struct sigaction action {};
        action.sa_handler = handleSignal;
        sigemptyset(&action.sa_mask);
        // Block the other two while cleaning up, so one cleanup runs at a time.
        sigaddset(&action.sa_mask, SIGINT);
        sigaddset(&action.sa_mask, SIGTERM);
        sigaddset(&action.sa_mask, SIGHUP);
        action.sa_flags = SA_RESETHAND;
        ::sigaction(signal, &action, nullptr);
    }
}

}  // namespace qkv
