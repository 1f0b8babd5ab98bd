#include "core/analysis/head_range.hpp"

namespace qkv {

std::string headRangeProblem(Index head, Index headCount)
{
    return "head " + std::to_string(head + 1) + " does not exist: the layer has " + std::to_string(headCount) +
           (headCount == 1 ? " head" : " heads");
}

}  // namespace qkv
