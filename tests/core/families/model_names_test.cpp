// Models are named as their config.json's model_type says (model_names.hpp), also where several
// share one family row, while the row's name (the export's `family`) stays the family's.

#include <gtest/gtest.h>

#include "core/families/family_table.hpp"
#include "core/families/model_names.hpp"

namespace qkv {
namespace {

CheckpointConfig ofType(const char* modelType)
{
    CheckpointConfig config;
    config.modelType = modelType;
    return config;
}

TEST(ModelNames, EachModelTypeIsNamedAsItsAuthorsSpellIt)
{
    EXPECT_EQ(modelDisplayName(Family::Qwen3, ofType("qwen3")), "Qwen3");
    EXPECT_EQ(modelDisplayName(Family::Gemma3, ofType("gemma3_text")), "Gemma 3");
    EXPECT_EQ(modelDisplayName(Family::Gemma2, ofType("gemma2")), "Gemma 2");
    EXPECT_EQ(modelDisplayName(Family::Phi3, ofType("phi3")), "Phi-3");
    EXPECT_EQ(modelDisplayName(Family::Bart, ofType("bart")), "BART");
    EXPECT_EQ(modelDisplayName(Family::Marian, ofType("marian")), "Marian");
    EXPECT_EQ(modelDisplayName(Family::Gpt2, ofType("gpt2")), "GPT-2");
}

// Mistral and Qwen2 run on LLaMA's row: the row's name is the family's, the model keeps its own.
TEST(ModelNames, ModelsSharingARowKeepTheirOwnNames)
{
    EXPECT_EQ(modelDisplayName(Family::Llama, ofType("llama")), "LLaMA");
    EXPECT_EQ(modelDisplayName(Family::Llama, ofType("mistral")), "Mistral");
    EXPECT_EQ(modelDisplayName(Family::Llama, ofType("qwen2")), "Qwen2");
    EXPECT_EQ(modelDisplayName(Family::Roberta, ofType("xlm-roberta")), "XLM-RoBERTa");
    EXPECT_EQ(familyName(Family::Llama), "LLaMA-style") << "the export's documented `family` value";
}

TEST(ModelNames, AnUnknownModelTypeIsWrittenWithItsFamily)
{
    EXPECT_EQ(modelDisplayName(Family::Llama, ofType("acme_lm")), "acme_lm (LLaMA-style)");
    EXPECT_EQ(modelDisplayName(Family::Bert, CheckpointConfig{}), "BERT") << "no config.json: the family";
    EXPECT_TRUE(modelTypeDisplayName("acme_lm").empty());
}

// Every model_type a family row lists has a name here, so no row's model is named by its key.
TEST(ModelNames, EveryRowsModelTypeHasAName)
{
    for (const FamilyRow& row : kFamilyRows)
        for (const std::string_view type : row.modelTypes)
            if (!type.empty()) EXPECT_FALSE(modelTypeDisplayName(type).empty()) << type;
}

}  // namespace
}  // namespace qkv
