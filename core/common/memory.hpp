#pragma once
// Process-wide allocator setting for programs that recompute large matrices repeatedly.

namespace qkv {

// Keeps freed large blocks in the heap for the next computation instead of returning them to
// the kernel. A Result at n = 2048, h = 16 holds ~0.5 GB of fresh attention maps; on virtual
// machines every first-touched 4 KiB page costs microseconds (measured here: touching 256 MiB
// of new pages takes ~1.5 s), so without this each recompute pays that again. glibc only; a
// no-op elsewhere. Call once at start-up, before large allocations.
// Returns whether the setting took effect (false on other C libraries).
bool keepLargeAllocationsForReuse();

}  // namespace qkv
