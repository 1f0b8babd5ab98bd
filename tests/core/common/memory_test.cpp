#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

#include <gtest/gtest.h>

#include "core/common/matrix.hpp"
#include "core/common/memory.hpp"

namespace qkv {
namespace {

long minorFaults()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt;
}

// AddressSanitizer replaces malloc with its own allocator, which has no mallopt (its stub says
// no) and quarantines freed blocks instead of reusing them.
#if defined(__SANITIZE_ADDRESS__)
#define QKV_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define QKV_ADDRESS_SANITIZER 1
#endif
#endif

#if defined(__GLIBC__)
TEST(Memory, FreedLargeMatricesAreReusedWithoutNewPageFaults)
{
#if defined(QKV_ADDRESS_SANITIZER)
    GTEST_SKIP() << "AddressSanitizer's allocator has no mallopt and never reuses freed blocks at once";
#endif
    ASSERT_TRUE(keepLargeAllocationsForReuse());
    const auto allocate = [] {
        std::vector<MatrixF> maps(8);
        for (MatrixF& map : maps) map.setZero(1024, 1024);  // 4 MiB each, touched
    };
    allocate();
    const long before = minorFaults();
    allocate();
    // 32 MiB of fresh pages would be ~8192 faults; reused memory needs (almost) none.
    EXPECT_LT(minorFaults() - before, 200);
}

// Resident memory of this process (pages the kernel counts), in bytes.
long residentBytes()
{
    long pages = 0, resident = 0;
    if (std::FILE* statm = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(statm, "%ld %ld", &pages, &resident) != 2) resident = 0;
        std::fclose(statm);
    }
    return resident * ::sysconf(_SC_PAGESIZE);
}

TEST(Memory, ReleasingFreedMemoryReturnsTheKeptBlocks)
{
#if defined(QKV_ADDRESS_SANITIZER)
    GTEST_SKIP() << "AddressSanitizer's allocator has no mallopt and no malloc_trim to test";
#endif
    ASSERT_TRUE(keepLargeAllocationsForReuse());
    {
        std::vector<MatrixF> maps(16);
        for (MatrixF& map : maps) map.setOnes(1024, 1024);  // 4 MiB each, touched: 64 MiB in the heap
    }
    const long kept = residentBytes();
    releaseFreedMemory();
    // The 64 MiB freed above were kept resident; released, at least half of them are gone.
    EXPECT_GT(kept - residentBytes(), 32L << 20) << kept;
}
#endif

}  // namespace
}  // namespace qkv
