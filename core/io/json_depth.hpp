#pragma once
// How deeply a JSON text nests, counted on the raw text before it is parsed: nlohmann::json
// parses recursively, so a file of a million '[' would exhaust the stack. Readers of JSON from
// files (safetensors headers, a checkpoint's config.json) refuse a text deeper than their own
// limit before handing it to the parser.

#include <cstddef>
#include <string_view>

namespace qkv {

// The deepest bracket nesting ('{' and '[') of `text`; brackets inside strings, escaped quotes
// included, are not counted. Stops at the first bracket that goes past `limit` and returns
// limit + 1 then, so a caller refuses the text when the result is greater than its limit.
// Does not validate the JSON: unbalanced brackets are left to the parser.
int jsonDepth(std::string_view text, int limit);

// The same nesting, and about how many values the text holds (its containers, commas and colons),
// in one whole pass: for readers of large files whose parsed size must be bounded too
// (tokenizer.json).
struct JsonShape {
    int depth = 0;
    std::size_t values = 0;
};
JsonShape jsonShape(std::string_view text);

}  // namespace qkv
