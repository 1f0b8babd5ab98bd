#pragma once
// Copies into memory that is written once and read much later (a result's large maps), without
// passing through the cache.
//
// An ordinary store to a line that is not in cache first reads the line from memory ("read for
// ownership"), then writes it back when it is evicted: twice the traffic. A non-temporal
// ("streaming") store writes whole lines straight to memory and keeps the cache for the data
// still being worked on (the fused forward pass writes its n_q x n_k maps this way).

#include "core/common/matrix.hpp"

namespace qkv {

// to[0 .. count) = from[0 .. count). The ranges must not overlap. Non-temporal stores on x86
// (SSE2 and up, the widest the build targets); a plain copy elsewhere.
void streamCopy(const float* from, float* to, Index count);

// Orders the streaming stores made so far by this thread before its later stores (x86 sfence;
// nothing elsewhere). Call once after a batch of streamCopy, before another thread may read.
void finishStreamCopies();

}  // namespace qkv
