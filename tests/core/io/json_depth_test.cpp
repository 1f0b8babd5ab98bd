// jsonDepth: the bracket count that bounds the JSON parser's recursion before a safetensors
// header or a checkpoint's config.json is parsed.

#include <string>

#include <gtest/gtest.h>

#include "core/io/json_depth.hpp"

namespace qkv {
namespace {

constexpr int kRoomy = 100;  // a limit none of the small texts below reaches

TEST(JsonDepth, CountsTheDeepestNestingOfObjectsAndLists)
{
    EXPECT_EQ(jsonDepth("", kRoomy), 0);
    EXPECT_EQ(jsonDepth("42", kRoomy), 0);
    EXPECT_EQ(jsonDepth("{}", kRoomy), 1);
    EXPECT_EQ(jsonDepth("[[], [[]]]", kRoomy), 3);
    // A safetensors header: { name: { shape: [ ] } }.
    EXPECT_EQ(jsonDepth(R"({"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}})", kRoomy), 3);
    // Siblings do not add up: the depth falls back after each closing bracket.
    EXPECT_EQ(jsonDepth(R"({"a": [[1]], "b": [[2]], "c": [[3]]})", kRoomy), 3);
}

TEST(JsonDepth, IgnoresBracketsInsideStrings)
{
    EXPECT_EQ(jsonDepth(R"({"name": "[[[{{{"})", kRoomy), 1);
    EXPECT_EQ(jsonDepth(R"(["]]]}}}", ["x"]])", kRoomy), 2);
    // An escaped quote does not end the string, so the brackets after it are still text...
    EXPECT_EQ(jsonDepth(R"({"a": "say \"[[[\" twice"})", kRoomy), 1);
    // ...and an escaped backslash before the closing quote does end it.
    EXPECT_EQ(jsonDepth(R"({"a": "ends in \\", "b": [[1]]})", kRoomy), 3);
}

TEST(JsonDepth, StopsAtTheFirstBracketPastTheLimit)
{
    const std::string deep = std::string(1000, '[') + std::string(1000, ']');
    EXPECT_EQ(jsonDepth(deep, 1000), 1000);  // at the limit: counted to the end
    EXPECT_EQ(jsonDepth(deep, 16), 17);      // past it: limit + 1, the rest not scanned
    EXPECT_EQ(jsonDepth("[[[", 2), 3);
    EXPECT_EQ(jsonDepth("[[]]", 2), 2);      // exactly the limit is not past it
    // Unclosed brackets (invalid JSON, left to the parser) still count.
    EXPECT_EQ(jsonDepth(std::string(40, '{'), 32), 33);
}

}  // namespace
}  // namespace qkv
