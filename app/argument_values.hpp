#pragma once
// The command line's errors and the values its options take, shared by every command (export,
// figure, train) so that each says the same thing about the same mistake.

#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/enum_names.hpp"

namespace qkv::app {

// A bad argument: one line naming the option, exit status 2.
struct ArgumentError {
    std::string message;
};

// A file that cannot be read: one line naming it, exit status 1.
struct ReadError {
    std::string message;
};

template <class Integer>
Integer parseInteger(std::string_view option, std::string_view text)
{
    Integer value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size())
        throw ArgumentError{std::string(option) + ": '" + std::string(text) + "' is not a whole number"};
    return value;
}

template <class Floating>
Floating parseNumber(std::string_view option, std::string_view text)
{
    Floating value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size() || !std::isfinite(value))
        throw ArgumentError{std::string(option) + ": '" + std::string(text) + "' is not a number"};
    return value;
}

// "1,3,5" -> "1", "3", "5" (an empty item stays, for the caller to refuse by name).
inline std::vector<std::string_view> splitOnCommas(std::string_view text)
{
    std::vector<std::string_view> parts;
    while (true) {
        const auto comma = text.find(',');
        parts.push_back(text.substr(0, comma));
        if (comma == std::string_view::npos) return parts;
        text.remove_prefix(comma + 1);
    }
}

inline std::string nonEmptyPath(std::string_view option, std::string_view text)
{
    if (text.empty()) throw ArgumentError{std::string(option) + ": the path is empty"};
    return std::string(text);
}

// A name from one of core's spelling tables (core/common/enum_names.hpp).
template <class Table>
TableEnum<Table> parseChoice(std::string_view option, std::string_view text, const Table& names)
{
    const auto value = parseName(names, text);
    if (!value)
        throw ArgumentError{std::string(option) + ": '" + std::string(text) + "' is not one of " + allowedNames(names)};
    return *value;
}

}  // namespace qkv::app
