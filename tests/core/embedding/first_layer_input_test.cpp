// The first layer's input X for BERT and GPT-2 against NumPy (tests/data/tokenizers/
// make_fixtures.py, float64 then float32), from the Python tokenizer's ids and from ours; a hand
// computed LayerNorm; LayerNorm's identities; and what invalid ids, lengths and shapes give.

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "core/embedding/first_layer_input.hpp"
#include "core/io/npy.hpp"
#include "core/text/byte_level_bpe_tokenizer.hpp"
#include "core/text/tokenizer_test_support.hpp"
#include "core/text/wordpiece_tokenizer.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

using testing::tokenizerCases;
using testing::tokenizerFixture;

MatrixF table(const std::string& name)
{
    auto m = readNpyMatrix(tokenizerFixture(name));
    EXPECT_TRUE(m.ok()) << m.error();
    return m.ok() ? *m : MatrixF();
}

struct BertTables {
    MatrixF word = table("bert_word.npy"), position = table("bert_position.npy"), type = table("bert_type.npy");
    LayerNormParameters norm{table("bert_gamma.npy"), table("bert_beta.npy"), 1e-12};
    MatrixF expected = table("bert_x.npy");
};

struct Gpt2Tables {
    MatrixF wte = table("gpt2_wte.npy"), wpe = table("gpt2_wpe.npy");
    LayerNormParameters ln1{table("gpt2_gamma.npy"), table("gpt2_beta.npy"), 1e-5};
    MatrixF expected = table("gpt2_x.npy");
};

MatrixF expectedRows(const MatrixF& all, const nlohmann::json& family)
{
    const auto rows = family.at("x_rows").get<std::vector<Index>>();
    return all.middleRows(rows[0], rows[1] - rows[0]);
}

constexpr double kTolerance = 1e-6;

TEST(ModelInput, BertMatchesNumpy)
{
    const BertTables t;
    const nlohmann::json cases = tokenizerCases();
    EXPECT_DOUBLE_EQ(cases.at("bert_layer_norm_eps").get<double>(), t.norm.epsilon);
    auto vocab = loadWordPieceVocab(tokenizerFixture("wordpiece_vocab.txt"));
    ASSERT_TRUE(vocab.ok()) << vocab.error();
    for (const auto& c : cases.at("cases")) {
        const auto ids = c.at("bert").at("ids").get<std::vector<std::int32_t>>();
        auto x = bertModelInput(ids, t.word, t.position, t.type, t.norm);
        ASSERT_TRUE(x.ok()) << x.error();
        EXPECT_MATRIX_NEAR(*x, expectedRows(t.expected, c.at("bert")), kTolerance) << c.at("text");
        // The whole way: our tokenizer's ids give the same X.
        auto tokens = wordPieceTokenize(*vocab, c.at("text").get<std::string>());
        ASSERT_TRUE(tokens.ok());
        auto fromOurIds = bertModelInput(tokens->ids(), t.word, t.position, t.type, t.norm);
        ASSERT_TRUE(fromOurIds.ok());
        EXPECT_MATRIX_NEAR(*fromOurIds, *x, 0.0);
    }
}

TEST(ModelInput, Gpt2MatchesNumpy)
{
    const Gpt2Tables t;
    const nlohmann::json cases = tokenizerCases();
    EXPECT_DOUBLE_EQ(cases.at("gpt2_layer_norm_epsilon").get<double>(), t.ln1.epsilon);
    auto bpe = loadByteLevelBpe(tokenizerFixture("bpe_vocab.json"), tokenizerFixture("bpe_merges.txt"));
    ASSERT_TRUE(bpe.ok()) << bpe.error();
    int compared = 0;
    for (const auto& c : cases.at("cases")) {
        const auto ids = c.at("gpt2").at("ids").get<std::vector<std::int32_t>>();
        auto x = gpt2ModelInput(ids, t.wte, t.wpe, t.ln1);
        if (ids.empty()) {
            ASSERT_FALSE(x.ok());
            EXPECT_EQ(x.error(), "the sentence has no tokens");
            continue;
        }
        ASSERT_TRUE(x.ok()) << x.error();
        EXPECT_MATRIX_NEAR(*x, expectedRows(t.expected, c.at("gpt2")), kTolerance) << c.at("text");
        auto tokens = byteLevelBpeTokenize(*bpe, c.at("text").get<std::string>());
        ASSERT_TRUE(tokens.ok());
        auto fromOurIds = gpt2ModelInput(tokens->ids(), t.wte, t.wpe, t.ln1);
        ASSERT_TRUE(fromOurIds.ok());
        EXPECT_MATRIX_NEAR(*fromOurIds, *x, 0.0);
        ++compared;
    }
    EXPECT_GE(compared, 20);
}

TEST(ModelInput, TablesMayBeMappedFromACheckpointsMemory)
{
    // The checkpoint reader can hand over float32 data in place, without a copy.
    const Gpt2Tables t;
    const std::vector<float> raw(t.wte.data(), t.wte.data() + t.wte.size());
    const Eigen::Map<const MatrixF> mapped(raw.data(), t.wte.rows(), t.wte.cols());
    const std::vector<std::int32_t> ids = {5, 17, 300};
    auto fromMap = gpt2ModelInput(ids, mapped, t.wpe, t.ln1);
    auto fromMatrix = gpt2ModelInput(ids, t.wte, t.wpe, t.ln1);
    ASSERT_TRUE(fromMap.ok() && fromMatrix.ok());
    EXPECT_MATRIX_NEAR(*fromMap, *fromMatrix, 0.0);
}

TEST(ModelInput, LayerNormByHand)
{
    // x = [1, 3]: mean 2, biased variance 1, normalised [-1, 1] / sqrt(1 + eps).
    MatrixF token(1, 2), position = MatrixF::Zero(4, 2);
    token << 1.0f, 3.0f;
    RowVectorF gamma(2), beta(2);
    gamma << 2.0f, 1.0f;
    beta << 0.5f, 0.0f;
    const double eps = 0.25;
    auto x = gpt2ModelInput(std::vector<std::int32_t>{0}, token, position, {gamma, beta, eps});
    ASSERT_TRUE(x.ok()) << x.error();
    const double s = 1.0 / std::sqrt(1.0 + eps);
    EXPECT_FLOAT_EQ((*x)(0, 0), static_cast<float>(-2.0 * s + 0.5));
    EXPECT_FLOAT_EQ((*x)(0, 1), static_cast<float>(s));
}

TEST(ModelInput, RowsAreStandardisedWithUnitGammaAndZeroBeta)
{
    const BertTables t;
    const Index d = t.word.cols();
    const LayerNormParameters plain{RowVectorF::Ones(d), RowVectorF::Zero(d), 1e-12};
    std::vector<std::int32_t> ids;
    for (std::int32_t i = 0; i < 40; ++i) ids.push_back((i * 37) % static_cast<std::int32_t>(t.word.rows()));
    auto x = bertModelInput(ids, t.word, t.position, t.type, plain);
    ASSERT_TRUE(x.ok());
    for (Index r = 0; r < x->rows(); ++r) {
        const Eigen::RowVectorXd row = x->row(r).cast<double>();
        EXPECT_NEAR(row.mean(), 0.0, 1e-6) << r;
        EXPECT_NEAR((row.array() - row.mean()).square().mean(), 1.0, 1e-5) << r;
    }
}

TEST(ModelInput, InvalidInputsAreRefusedWithAMessage)
{
    const BertTables t;
    const std::vector<std::int32_t> ok = {2, 10, 3};
    // Ids outside the table.
    auto far = bertModelInput(std::vector<std::int32_t>{2, 201, 3}, t.word, t.position, t.type, t.norm);
    ASSERT_FALSE(far.ok());
    EXPECT_EQ(far.error(), "token 1 has id 201, but the token embeddings have 201 rows");
    EXPECT_FALSE(bertModelInput(std::vector<std::int32_t>{-1}, t.word, t.position, t.type, t.norm).ok());
    // More tokens than positions.
    const std::vector<std::int32_t> long65(65, 5);
    auto tooLong = bertModelInput(long65, t.word, t.position, t.type, t.norm);
    ASSERT_FALSE(tooLong.ok());
    EXPECT_EQ(tooLong.error(), "the sentence has 65 tokens; this model's positions go up to 64");
    EXPECT_TRUE(bertModelInput(std::vector<std::int32_t>(64, 5), t.word, t.position, t.type, t.norm).ok());
    // Shapes.
    const MatrixF narrow = t.position.leftCols(7);
    EXPECT_NE(bertModelInput(ok, t.word, narrow, t.type, t.norm).error().find("position embeddings are 64 x 7"),
              std::string::npos);
    EXPECT_FALSE(bertModelInput(ok, t.word, t.position, t.type.leftCols(3), t.norm).ok());
    EXPECT_FALSE(bertModelInput(ok, t.word, t.position, MatrixF(0, 8), t.norm).ok());
    LayerNormParameters shortGamma = t.norm;
    shortGamma.gamma = RowVectorF::Ones(5);
    EXPECT_NE(bertModelInput(ok, t.word, t.position, t.type, shortGamma).error().find("LayerNorm"), std::string::npos);
    for (double eps : {0.0, -1e-5, std::nan(""), std::numeric_limits<double>::infinity()}) {
        LayerNormParameters badEps = t.norm;
        badEps.epsilon = eps;
        EXPECT_FALSE(bertModelInput(ok, t.word, t.position, t.type, badEps).ok()) << eps;
    }
    EXPECT_FALSE(gpt2ModelInput(ok, MatrixF(0, 0), t.position, t.norm).ok());
    // A NaN in the table is named by its token.
    MatrixF poisoned = t.word;
    poisoned(10, 3) = std::nanf("");
    auto nan = bertModelInput(ok, poisoned, t.position, t.type, t.norm);
    ASSERT_FALSE(nan.ok());
    EXPECT_NE(nan.error().find("token 1"), std::string::npos) << nan.error();
    // Positions may start later (RoBERTa counts from 2).
    auto offset = normalizedEmbeddingSum(ok, t.word, t.position, 62, nullptr, t.norm);
    ASSERT_FALSE(offset.ok());
    EXPECT_EQ(offset.error(), "the sentence has 3 tokens; this model's positions go up to 2");
}

}  // namespace
}  // namespace qkv
