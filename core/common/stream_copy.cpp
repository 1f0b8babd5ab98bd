#include "core/common/stream_copy.hpp"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace qkv {

namespace {

#if defined(__AVX512F__)
constexpr Index lanes = 16;  // floats per store
inline void storeLanes(const float* from, float* to) { _mm512_stream_ps(to, _mm512_loadu_ps(from)); }
#elif defined(__AVX__)
constexpr Index lanes = 8;
inline void storeLanes(const float* from, float* to) { _mm256_stream_ps(to, _mm256_loadu_ps(from)); }
#elif defined(__SSE2__)
constexpr Index lanes = 4;
inline void storeLanes(const float* from, float* to) { _mm_stream_ps(to, _mm_loadu_ps(from)); }
#endif

}  // namespace

void streamCopy(const float* from, float* to, Index count)
{
#if defined(__SSE2__)
    // Plain stores up to the first address the streaming store accepts (aligned to its width),
    // streaming stores for the body, plain stores for the rest.
    constexpr auto alignment = static_cast<std::uintptr_t>(lanes * sizeof(float));
    Index head = 0;
    while (head < count && reinterpret_cast<std::uintptr_t>(to + head) % alignment != 0) {
        to[head] = from[head];
        ++head;
    }
    Index i = head;
    for (; i + lanes <= count; i += lanes) storeLanes(from + i, to + i);
    for (; i < count; ++i) to[i] = from[i];
#else
    if (count > 0) std::memcpy(to, from, static_cast<std::size_t>(count) * sizeof(float));
#endif
}

void finishStreamCopies()
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

}  // namespace qkv
