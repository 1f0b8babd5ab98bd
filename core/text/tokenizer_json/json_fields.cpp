#include "core/text/tokenizer_json/json_fields.hpp"

namespace qkv::tokenizer_json {

Expected<std::string> componentType(const Json& spec, const std::string& what)
{
    if (!spec.is_object()) return Error{what + " is not a JSON object"};
    const auto it = spec.find("type");
    if (it == spec.end() || !it->is_string()) return Error{what + " has no \"type\""};
    return it->get<std::string>();
}

Expected<std::string> stringField(const Json& spec, const char* key, const std::string& what,
                                  std::optional<std::string> fallback)
{
    const auto it = spec.find(key);
    if (it == spec.end() || it->is_null()) {
        if (fallback) return *fallback;
        return Error{what + " has no \"" + key + "\""};
    }
    if (!it->is_string()) return Error{what + "'s \"" + key + "\" is not a string"};
    return it->get<std::string>();
}

Expected<bool> boolField(const Json& spec, const char* key, const std::string& what, bool fallback)
{
    const auto it = spec.find(key);
    if (it == spec.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) return Error{what + "'s \"" + key + "\" is not true or false"};
    return it->get<bool>();
}

Expected<const Json*> arrayField(const Json& spec, const char* key, const std::string& what)
{
    const auto it = spec.find(key);
    if (it == spec.end() || !it->is_array()) return Error{what + " has no \"" + key + "\" list"};
    return &*it;
}

Expected<Pattern> parsePattern(const Json& spec, const std::string& what)
{
    const auto it = spec.find("pattern");
    if (it == spec.end() || !it->is_object() || it->size() != 1)
        return Error{what + " has no \"pattern\" of the form {\"String\": ...} or {\"Regex\": ...}"};
    const std::string kind = it->begin().key();
    const Json& value = it->begin().value();
    if (!value.is_string()) return Error{what + "'s pattern is not a string"};
    if (kind == "String") return Pattern::literal(value.get<std::string>());
    if (kind == "Regex") {
        Expected<Pattern> regex = Pattern::regex(value.get<std::string>());
        if (!regex) return Error{what + ": " + regex.error()};
        return regex;
    }
    return Error{what + "'s pattern kind '" + kind + "' is not supported"};
}

}  // namespace qkv::tokenizer_json
