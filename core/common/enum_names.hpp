#pragma once
// The spellings of an enumeration that users type or files store ("xavier", "causal", ...),
// defined by one table of entries {value, name}. From that table alone come the name of a value
// (writing a session), the value of a name (reading a session, the command line) and the list
// an error message or a --help text prints ("xavier, normal"), so the three never disagree.
//
// A table is any range of entries with members `value` and `name`; EnumName is the plain entry,
// and an enumeration with more to say per value (a title for people, ...) keeps those columns
// in the same entry:
//
//     inline constexpr std::array<EnumName<WeightInit>, 2> kWeightInitNames{{
//         {WeightInit::XavierUniform, "xavier"}, {WeightInit::Normal, "normal"}}};

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace qkv {

template <class Enum>
struct EnumName {
    Enum value;
    std::string_view name;
};

// The enumeration a table spells.
template <class Table>
using TableEnum = std::remove_cvref_t<decltype(std::declval<const Table&>().begin()->value)>;

// The first entry that holds `value`, for the other columns of a table; nullptr when none does
// (every table lists every value; tests/core/common/enum_names_test.cpp checks the program's).
template <class Table>
constexpr auto entryOf(const Table& table, TableEnum<Table> value) -> decltype(&*table.begin())
{
    for (const auto& entry : table)
        if (entry.value == value) return &entry;
    return nullptr;
}

// The name of `value`; empty when the table lacks it.
template <class Table>
constexpr std::string_view nameOf(const Table& table, TableEnum<Table> value)
{
    const auto* entry = entryOf(table, value);
    return entry ? entry->name : std::string_view();
}

// The value spelled `text` (exactly: case and punctuation count), or nothing.
template <class Table>
constexpr std::optional<TableEnum<Table>> parseName(const Table& table, std::string_view text)
{
    for (const auto& entry : table)
        if (entry.name == text) return entry.value;
    return std::nullopt;
}

// The same for a parser of the form bool parse(name, value&): `out` changes only when `text` is
// a name.
template <class Table>
constexpr bool parseName(const Table& table, std::string_view text, TableEnum<Table>& out)
{
    const std::optional<TableEnum<Table>> value = parseName(table, text);
    if (value) out = *value;
    return value.has_value();
}

// Every name in table order, joined: "xavier, normal" (or "xavier|normal" with separator "|").
template <class Table>
std::string allowedNames(const Table& table, std::string_view separator = ", ")
{
    std::string names;
    for (const auto& entry : table) {
        if (!names.empty()) names += separator;
        names += entry.name;
    }
    return names;
}

}  // namespace qkv
