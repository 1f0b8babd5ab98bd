#pragma once
// A list of names as messages print it: "'a', 'b', 'c' and 4 more".

#include <cstddef>
#include <string>
#include <vector>

namespace qkv {

// Up to `limit` names, quoted, then "and N more".
std::string quotedNames(const std::vector<std::string>& names, std::size_t limit);

}  // namespace qkv
