#include "core/common/memory.hpp"

// __GLIBC__ comes from a C library header: include one before testing it.
#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <cstdint>

namespace qkv {

bool keepLargeAllocationsForReuse()
{
#if defined(__GLIBC__)
    // Serve blocks up to 32 MiB (one 2048 x 2048 float map is 16 MiB) from the heap, and never
    // trim its top below 1 GiB: freed maps are reused by the next result.
    return mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1 && mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1;
#else
    return false;
#endif
}

void releaseFreedMemory()
{
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

void preferHugePages(void* data, std::size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
    if (data == nullptr || bytes < 2 * huge) return;
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    const std::uintptr_t first = (begin + huge - 1) & ~(huge - 1);
    const std::uintptr_t last = (begin + bytes) & ~(huge - 1);
    // A hint: when the kernel declines (huge pages off, or not this memory), pages stay 4 KiB.
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
    (void)data;
    (void)bytes;
#endif
}

MatrixF freshLargeMatrix(Index rows, Index cols)
{
    MatrixF m(rows, cols);
    preferHugePages(m.data(), static_cast<std::size_t>(m.size()) * sizeof(float));
    return m;
}

}  // namespace qkv
