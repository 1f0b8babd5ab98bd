#include "core/io/json_depth.hpp"

#include <algorithm>
#include <cstddef>

namespace qkv {

namespace {

// Calls visit(c) for every character of `text` outside strings (escaped quotes included in
// them) until it returns false.
template <class Visit>
void visitStructure(std::string_view text, Visit visit)
{
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\') ++i;  // the escaped character, a quote perhaps, does not end the string
            else if (c == '"') inString = false;
            continue;
        }
        if (c == '"') inString = true;
        else if (!visit(c)) return;
    }
}

}  // namespace

int jsonDepth(std::string_view text, int limit)
{
    int depth = 0;
    int deepest = 0;
    visitStructure(text, [&](char c) {
        if (c == '{' || c == '[') {
            deepest = std::max(deepest, ++depth);
            return deepest <= limit;
        }
        if (c == '}' || c == ']') --depth;
        return true;
    });
    return deepest;
}

JsonShape jsonShape(std::string_view text)
{
    JsonShape shape;
    int depth = 0;
    visitStructure(text, [&](char c) {
        if (c == '{' || c == '[') {
            shape.depth = std::max(shape.depth, ++depth);
            ++shape.values;
        } else if (c == '}' || c == ']') --depth;
        else if (c == ',' || c == ':') ++shape.values;
        return true;
    });
    return shape;
}

}  // namespace qkv
