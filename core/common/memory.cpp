#include "core/common/memory.hpp"

// __GLIBC__ comes from a C library header: include one before testing it.
#include <cstdlib>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

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

}  // namespace qkv
