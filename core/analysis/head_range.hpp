#pragma once
// The message every per-head analysis gives for a head the layer does not have.

#include <string>

#include "core/common/matrix.hpp"

namespace qkv {

// "head 5 does not exist: the layer has 4 heads" (heads count from 1 in messages).
std::string headRangeProblem(Index head, Index headCount);

}  // namespace qkv
