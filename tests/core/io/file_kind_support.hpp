#pragma once
// Makes the paths that are not regular files (FIFOs, sockets, links) for the file-safety tests,
// and guards a read that might block on a FIFO so that a regression fails instead of hanging.

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace qkv::testing {

inline void makeFifo(const std::string& path) { ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0) << path; }

// A listening-free Unix socket bound at `path`; the descriptor stays open until the object dies.
class BoundSocket {
public:
    explicit BoundSocket(const std::string& path)
    {
        descriptor_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        EXPECT_LT(path.size(), sizeof address.sun_path);
        path.copy(address.sun_path, sizeof address.sun_path - 1);
        EXPECT_EQ(::bind(descriptor_, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0) << path;
    }
    ~BoundSocket() { ::close(descriptor_); }
    BoundSocket(const BoundSocket&) = delete;
    BoundSocket& operator=(const BoundSocket&) = delete;

private:
    int descriptor_ = -1;
};

// Runs `read` (which must refuse `fifo` at once). Should it block in open() or read(), a
// watchdog opens and closes the FIFO's other end after ten seconds (far beyond a refusal's time
// on a loaded machine or in the sanitizer build), which unblocks it, and the test fails instead
// of hanging.
template <class Read>
auto readWithoutBlocking(const std::string& fifo, Read read)
{
    std::atomic<bool> done{false};
    std::thread watchdog([&] {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!done && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        if (done) return;
        ADD_FAILURE() << "reading " << fifo << " blocked";
        for (int i = 0; i < 400 && !done; ++i) {  // a writer that opens and closes: EOF
            const int end = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
            if (end >= 0) ::close(end);
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    });
    auto result = read();
    done = true;
    watchdog.join();
    return result;
}

inline bool isCharacterDevice(const std::string& path)
{
    struct stat info {};
    return ::lstat(path.c_str(), &info) == 0 && S_ISCHR(info.st_mode);
}

inline bool isFifo(const std::string& path)
{
    struct stat info {};
    return ::lstat(path.c_str(), &info) == 0 && S_ISFIFO(info.st_mode);
}

inline unsigned permissionBits(const std::string& path)
{
    struct stat info {};
    ::stat(path.c_str(), &info);
    return info.st_mode & 07777;
}

}  // namespace qkv::testing
