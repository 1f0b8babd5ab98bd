#include <array>
#include <string_view>

#include <gtest/gtest.h>

#include "core/common/enum_names.hpp"

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
    EXPECT_EQ(nameOf(kFruitWords, Fruit::Pear), "pear");
    EXPECT_EQ(parseName(kFruitWords, "apple"), Fruit::Apple);
    EXPECT_EQ(nameOf(kFruitWords, Fruit::Quince), "");  // not in the table
    EXPECT_EQ(allowedNames(kFruitWords), "apple, pear");
}

}  // namespace
}  // namespace qkv
