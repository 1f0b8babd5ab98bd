#pragma once
// Process-wide allocator setting for programs that recompute large matrices repeatedly, and a
// hint for large matrices written once.

#include <cstddef>

#include "core/common/matrix.hpp"

namespace qkv {

// Keeps freed large blocks in the heap for the next computation instead of returning them to
// the kernel. A Result at n = 2048, h = 16 holds ~0.5 GB of fresh attention maps; on virtual
// machines every first-touched 4 KiB page costs microseconds (measured here: touching 256 MiB
// of new pages takes ~1.5 s), so without this each recompute pays that again. glibc only; a
// no-op elsewhere. Call once at start-up, before large allocations.
// Returns whether the setting took effect (false on other C libraries).
bool keepLargeAllocationsForReuse();

// Returns the freed memory the heap keeps (see above) to the kernel now. For one-shot work that
// allocates the same sizes in varying order, such as the export's per-head analysis: without it
// the kept blocks fragment and the peak grows with every head (measured: +30 MiB a head at
// d_model 4096, d_k 1024). glibc only; a no-op elsewhere.
void releaseFreedMemory();

// Asks the kernel to back the 2 MiB-aligned interior of [data, data + bytes) with huge pages
// (transparent huge pages, which this machine's kernel grants on request: "madvise" mode) before
// it is first written. A model's weights are gigabytes of fresh memory written once; with 4 KiB
// pages each page's first touch is a fault (above), with 2 MiB pages one in 512 is. Linux only;
// a no-op elsewhere and below 4 MiB.
void preferHugePages(void* data, std::size_t bytes);

// A rows x cols matrix (uninitialised) that is about to be written whole: preferHugePages on its
// memory. For the large matrices a run fills once (every position's logits, a map grown by typed
// tokens): fresh 4 KiB pages were a third of a typed-on run's time here.
MatrixF freshLargeMatrix(Index rows, Index cols);

}  // namespace qkv
