// Vocabulary: the special tokens, adding and finding, encoding sentences and reading a saved list.
#include <gtest/gtest.h>

#include "core/training/vocabulary.hpp"

namespace qkv {
namespace {

TEST(Vocabulary, StartsWithTheThreeSpecialTokens)
{
    const Vocabulary vocabulary;
    ASSERT_EQ(vocabulary.size(), 3);
    EXPECT_EQ(vocabulary.token(Vocabulary::pad), "<pad>");
    EXPECT_EQ(vocabulary.token(Vocabulary::bos), "<bos>");
    EXPECT_EQ(vocabulary.token(Vocabulary::eos), "<eos>");
    EXPECT_EQ(vocabulary.find("<eos>"), Vocabulary::eos);
}

TEST(Vocabulary, AddGivesEachTokenOneIdInOrder)
{
    Vocabulary vocabulary;
    EXPECT_EQ(vocabulary.add("chat"), 3);
    EXPECT_EQ(vocabulary.add("noir"), 4);
    EXPECT_EQ(vocabulary.add("chat"), 3);
    EXPECT_EQ(vocabulary.size(), 5);
    EXPECT_EQ(vocabulary.find("noir"), 4);
    EXPECT_FALSE(vocabulary.find("Chat").has_value()) << "tokens match exactly, case included";
    EXPECT_EQ(vocabulary.tokens(), (std::vector<std::string>{"<pad>", "<bos>", "<eos>", "chat", "noir"}));
}

TEST(Vocabulary, EncodesWordsSplitOnWhiteSpace)
{
    Vocabulary vocabulary;
    vocabulary.add("le");
    vocabulary.add("chat");
    vocabulary.add("noir");
    const Expected<std::vector<std::int32_t>> ids = vocabulary.encode("  le\tchat \n noir ");
    ASSERT_TRUE(ids.ok()) << ids.error();
    EXPECT_EQ(*ids, (std::vector<std::int32_t>{3, 4, 5}));
    EXPECT_EQ(vocabulary.decode(*ids), "le chat noir");
    EXPECT_TRUE(vocabulary.encode("   ").ok());
    EXPECT_TRUE(vocabulary.encode("").value().empty());
}

TEST(Vocabulary, AnUnknownWordIsAnErrorNamingIt)
{
    Vocabulary vocabulary;
    vocabulary.add("chat");
    const Expected<std::vector<std::int32_t>> ids = vocabulary.encode("chat zebra");
    ASSERT_FALSE(ids.ok());
    EXPECT_EQ(ids.error(), "'zebra' is not in this model's vocabulary (4 tokens)");
}

TEST(Vocabulary, DecodeMarksIdsOutsideTheVocabulary)
{
    const Vocabulary vocabulary;
    EXPECT_EQ(vocabulary.decode({1, 2, 7}), "<bos> <eos> <7?>");
}

TEST(Vocabulary, FromTokensRebuildsTheSameIds)
{
    const Expected<Vocabulary> vocabulary = Vocabulary::fromTokens({"<pad>", "<bos>", "<eos>", "a", "b"});
    ASSERT_TRUE(vocabulary.ok()) << vocabulary.error();
    EXPECT_EQ(vocabulary->find("b"), 4);
    EXPECT_EQ(vocabulary->size(), 5);
}

TEST(Vocabulary, FromTokensRefusesWhatNoModelCouldHaveWritten)
{
    const auto errorOf = [](std::vector<std::string> tokens) {
        const Expected<Vocabulary> vocabulary = Vocabulary::fromTokens(std::move(tokens));
        return vocabulary.ok() ? std::string() : vocabulary.error();
    };
    EXPECT_NE(errorOf({"<pad>", "<bos>"}).find("at least the tokens"), std::string::npos);
    EXPECT_NE(errorOf({"<bos>", "<pad>", "<eos>"}).find("token 0 of a vocabulary must be <pad>"), std::string::npos);
    EXPECT_NE(errorOf({"<pad>", "<bos>", "<eos>", "a", "a"}).find("token 4 of the vocabulary ('a') appears twice"),
              std::string::npos);
    EXPECT_NE(errorOf({"<pad>", "<bos>", "<eos>", "<bos>"}).find("appears twice"), std::string::npos);
    EXPECT_NE(errorOf({"<pad>", "<bos>", "<eos>", ""}).find("token 3 of the vocabulary is empty"), std::string::npos);
    EXPECT_NE(errorOf({"<pad>", "<bos>", "<eos>", "le chat"}).find("white space"), std::string::npos);
    EXPECT_NE(errorOf({"<pad>", "<bos>", "<eos>", "\xff"}).find("not UTF-8"), std::string::npos);
    std::vector<std::string> tooMany{"<pad>", "<bos>", "<eos>"};
    for (int i = 0; i < 70000; ++i) tooMany.push_back("w" + std::to_string(i));
    EXPECT_NE(errorOf(tooMany).find("at most 65536 tokens"), std::string::npos);
}

}  // namespace
}  // namespace qkv
