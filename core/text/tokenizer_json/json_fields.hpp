#pragma once
// Reading the fields of a tokenizer.json object with messages that name the field, for a file
// from the internet: a missing or mistyped field is an error, never an exception.

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/common/expected.hpp"
#include "core/text/tokenizer_json/spanned_text.hpp"

namespace qkv::tokenizer_json {

using Json = nlohmann::json;

// "type" of a component ("Split"), or an error naming `what` ("pre_tokenizer").
Expected<std::string> componentType(const Json& spec, const std::string& what);

// A string field; `fallback` when absent or null (no fallback: an error).
Expected<std::string> stringField(const Json& spec, const char* key, const std::string& what,
                                  std::optional<std::string> fallback = std::nullopt);
// A boolean field; `fallback` when absent or null.
Expected<bool> boolField(const Json& spec, const char* key, const std::string& what, bool fallback);
// An array field (absent or null: an error).
Expected<const Json*> arrayField(const Json& spec, const char* key, const std::string& what);

// A Sequence component's parts, the list under `key`, each read by `parse` (which gives null
// for a null part: left out).
template <class Part, class Parse>
Expected<std::vector<std::shared_ptr<const Part>>> parseSequence(const Json& spec, const char* key, const std::string& what,
                                                               Parse parse)
{
    Expected<const Json*> list = arrayField(spec, key, what);
    if (!list) return Error{list.error()};
    std::vector<std::shared_ptr<const Part>> parts;
    for (const Json& item : **list) {
        Expected<std::shared_ptr<const Part>> part = parse(item);
        if (!part) return Error{part.error()};
        if (*part) parts.push_back(std::move(*part));
    }
    return parts;
}

// A Split or Replace "pattern": {"String": "..."} or {"Regex": "..."}.
Expected<Pattern> parsePattern(const Json& spec, const std::string& what);

}  // namespace qkv::tokenizer_json
