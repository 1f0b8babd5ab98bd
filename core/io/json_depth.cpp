#include "core/io/json_depth.hpp"

#include <algorithm>
#include <cstddef>

namespace qkv {

int jsonDepth(std::string_view text, int limit)
{
    int depth = 0;
    int deepest = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\') ++i;  // the escaped character, a quote perhaps, does not end the string
            else if (c == '"') inString = false;
            continue;
        }
        if (c == '"') inString = true;
        else if (c == '{' || c == '[') {
            deepest = std::max(deepest, ++depth);
            if (deepest > limit) return deepest;
        } else if (c == '}' || c == ']') --depth;
    }
    return deepest;
}

}  // namespace qkv
