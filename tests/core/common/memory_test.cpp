#include <sys/resource.h>

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

#if defined(__GLIBC__)
TEST(Memory, FreedLargeMatricesAreReusedWithoutNewPageFaults)
{
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
#endif

}  // namespace
}  // namespace qkv
