#pragma once
// Limits that keep memory bounded and the GUI responsive. Documented in docs/formats.md.

#include <cstddef>

#include "core/common/matrix.hpp"

namespace qkv::limits {

inline constexpr Index maxDModel = 4096;
inline constexpr Index maxHeads = 256;
inline constexpr Index maxTokens = 4096;            // per sentence
inline constexpr std::size_t maxSentenceBytes = 1 << 20;  // 1 MiB of text
// Estimated bytes of one Result (see estimateResultBytes) may not exceed this.
inline constexpr std::size_t maxResultBytes = std::size_t{3} << 30;  // 3 GiB

}  // namespace qkv::limits
