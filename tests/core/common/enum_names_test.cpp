#include <array>
#include <string_view>

#include <gtest/gtest.h>

#include "core/checkpoint/checkpoint.hpp"
#include "core/common/enum_names.hpp"
#include "core/config/config.hpp"
#include "core/export/result_export.hpp"
#include "core/families/family_table.hpp"
#include "core/io/npy.hpp"
#include "core/io/safetensors.hpp"
#include "core/session/session.hpp"

namespace qkv {
namespace {

enum class Fruit { Apple, Pear, Quince };

constexpr std::array<EnumName<Fruit>, 3> kFruitNames{{
    {Fruit::Apple, "apple"},
    {Fruit::Pear, "pear"},
    {Fruit::Quince, "quince"},
}};

// A table with a column of its own beside value and name.
struct FruitWords {
    Fruit value;
    std::string_view name;
    std::string_view plural;
};
constexpr std::array<FruitWords, 2> kFruitWords{{{Fruit::Apple, "apple", "apples"}, {Fruit::Pear, "pear", "pears"}}};

TEST(EnumNames, NameOfAValueAndBack)
{
    EXPECT_EQ(nameOf(kFruitNames, Fruit::Pear), "pear");
    EXPECT_EQ(parseName(kFruitNames, "quince"), Fruit::Quince);
    static_assert(nameOf(kFruitNames, Fruit::Apple) == "apple", "usable at compile time");
    static_assert(parseName(kFruitNames, "pear") == Fruit::Pear, "usable at compile time");
}

TEST(EnumNames, ParsingIsExact)
{
    EXPECT_FALSE(parseName(kFruitNames, "Pear").has_value());
    EXPECT_FALSE(parseName(kFruitNames, " pear").has_value());
    EXPECT_FALSE(parseName(kFruitNames, "").has_value());
}

TEST(EnumNames, TheOutParameterChangesOnlyOnSuccess)
{
    Fruit fruit = Fruit::Apple;
    EXPECT_FALSE(parseName(kFruitNames, "plum", fruit));
    EXPECT_EQ(fruit, Fruit::Apple);
    EXPECT_TRUE(parseName(kFruitNames, "quince", fruit));
    EXPECT_EQ(fruit, Fruit::Quince);
}

TEST(EnumNames, AllowedNamesListsTheTableInOrder)
{
    EXPECT_EQ(allowedNames(kFruitNames), "apple, pear, quince");
    EXPECT_EQ(allowedNames(kFruitNames, "|"), "apple|pear|quince");
    EXPECT_EQ(allowedNames(std::array<EnumName<Fruit>, 0>{}), "");
}

TEST(EnumNames, TablesWithMoreColumnsWork)
{
    EXPECT_EQ(entryOf(kFruitWords, Fruit::Pear)->plural, "pears");
    EXPECT_EQ(entryOf(kFruitWords, Fruit::Quince), nullptr);
    EXPECT_EQ(nameOf(kFruitWords, Fruit::Pear), "pear");
    EXPECT_EQ(parseName(kFruitWords, "apple"), Fruit::Apple);
    EXPECT_EQ(nameOf(kFruitWords, Fruit::Quince), "");  // not in the table
    EXPECT_EQ(allowedNames(kFruitWords), "apple, pear");
}

// Every table of the program: names are unique and not empty, and each parses back to its value.
template <class Table>
void expectRoundTrip(const Table& table)
{
    for (std::size_t i = 0; i < table.size(); ++i) {
        SCOPED_TRACE(std::string(table[i].name));
        EXPECT_FALSE(table[i].name.empty());
        EXPECT_EQ(parseName(table, table[i].name), table[i].value);
        EXPECT_EQ(nameOf(table, table[i].value), table[i].name);
        for (std::size_t j = 0; j < i; ++j) EXPECT_NE(table[i].value, table[j].value);
    }
}

TEST(EnumNames, EveryTableOfTheProgramRoundTrips)
{
    expectRoundTrip(kAttentionModeNames);
    expectRoundTrip(kPositionalEncodingNames);
    expectRoundTrip(kEmbeddingKindNames);
    expectRoundTrip(kWeightInitNames);
    expectRoundTrip(kHeadPresetNames);
    expectRoundTrip(kHeadOriginNames);
    expectRoundTrip(kColorRangeModeNames);
    expectRoundTrip(kFamilyRows);
    expectRoundTrip(kExportFormatNames);
    expectRoundTrip(kTensorDtypeNames);
    expectRoundTrip(kNpyDtypeNames);
}

// The spellings are a contract with saved sessions and scripts: they never change.
TEST(EnumNames, SpellingsStayAsSessionsAndScriptsHaveThem)
{
    EXPECT_EQ(allowedNames(kAttentionModeNames), "self, causal, cross");
    EXPECT_EQ(allowedNames(kPositionalEncodingNames), "sinusoidal, rotary, rotary-interleaved, none");
    EXPECT_EQ(allowedNames(kEmbeddingKindNames), "word, meaning, model");
    EXPECT_EQ(allowedNames(kWeightInitNames), "xavier, normal");
    EXPECT_EQ(allowedNames(kHeadPresetNames),
              "uniform, same-token, previous-token, next-token, same-position, same-meaning, low-rank, random");
    EXPECT_EQ(allowedNames(kHeadOriginNames), "generated, file, edited");
    EXPECT_EQ(allowedNames(kColorRangeModeNames), "auto, unit, fixed");
    EXPECT_EQ(allowedNames(kExportFormatNames), "json, csv, npy");
    EXPECT_EQ(allowedNames(kTensorDtypeNames), "F32, F64, F16, BF16");
    EXPECT_EQ(allowedNames(kNpyDtypeNames), "<f4, <f8");
}

}  // namespace
}  // namespace qkv
