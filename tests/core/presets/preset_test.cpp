// Head presets: what each writes, what it leaves alone, and the settings it asks for.
#include <gtest/gtest.h>

#include "core/config/examples.hpp"
#include "core/config/validation.hpp"
#include "core/embedding/embeddings.hpp"
#include "core/factored/factored_matrix.hpp"
#include "core/pipeline/compute.hpp"
#include "core/presets/head_presets.hpp"
#include "core/presets/positional_bases.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

Config example(Index d_model = 64, Index h = 4)
{
    Config c = builtInExample();
    c.d_model = d_model;
    c.headCount = h;
    return c;
}

TEST(Presets, NamesRoundTrip)
{
    for (const HeadPresetKind kind : allPresetKinds()) {
        const auto parsed = parsePresetName(presetName(kind));
        ASSERT_TRUE(parsed.has_value()) << presetName(kind);
        EXPECT_EQ(*parsed, kind);
    }
    EXPECT_FALSE(parsePresetName("same_token").has_value());
    EXPECT_EQ(allPresetKinds().size(), 8u);
}

TEST(Presets, OtherHeadsAreUntouched)
{
    const Config plain = example();
    const auto before = compute(plain);
    GeneratedWeightsCache cache;
    for (const HeadPresetKind kind : allPresetKinds()) {
        const Config preset = withPreset(plain, {2, kind, 1.0, 3});
        const auto after = compute(preset, {}, &cache);
        ASSERT_TRUE(before.ok() && after.ok()) << presetName(kind);
        const HeadGrouping g = preset.grouping();
        for (Index head : {0, 1, 3}) {
            EXPECT_EQ((*after)->weights->queryHead(head, g), (*before)->weights->queryHead(head, g))
                << presetName(kind);
            EXPECT_EQ((*after)->weights->keyHead(head, g), (*before)->weights->keyHead(head, g)) << presetName(kind);
        }
    }
}

TEST(Presets, RandomRestoresTheSeedsHeadOverLoadedWeights)
{
    Config config = example();
    UserInputs inputs;
    inputs.weights = std::make_shared<const AttentionWeights>(initialiseWeights(64, 999, WeightInit::Normal, false));
    config.presets = {{1, HeadPresetKind::Random, 1.0, 1}};
    const auto result = compute(config, inputs);
    ASSERT_TRUE(result.ok()) << result.error();
    const AttentionWeights generated = initialiseWeights(64, config.seed, config.init, false);
    const HeadGrouping g = config.grouping();
    EXPECT_EQ((*result)->weights->queryHead(1, g), generated.queryHead(1, g));
    EXPECT_EQ((*result)->weights->valueHead(1, g), generated.valueHead(1, g));
    EXPECT_EQ((*result)->weights->outputHead(1, g), generated.outputHead(1, g));
    EXPECT_EQ((*result)->weights->queryHead(0, g), inputs.weights->queryHead(0, g));
}

TEST(Presets, LowRankHasExactlyRankR)
{
    for (const Index r : {1, 2, 7}) {
        const Config config = withPreset(example(64, 4), {0, HeadPresetKind::LowRank, 1.0, r});
        const auto result = compute(config);
        ASSERT_TRUE(result.ok()) << result.error();
        const FactoredMatrix w = FactoredMatrix::forHead(*(*result)->weights, 4, 0);
        EXPECT_EQ(w.numericalRank(), r);
        EXPECT_EQ(FactoredMatrix::forHead(*(*result)->weights, 4, 1).numericalRank(), 16);
    }
    Config bad = withPreset(example(64, 4), {0, HeadPresetKind::LowRank, 1.0, 16});
    const auto issues = validateConfig(bad);
    ASSERT_FALSE(issues.empty());
    EXPECT_NE(issues.front().message.find("1 <= r < d_k = 16"), std::string::npos) << issues.front().message;
}

TEST(Presets, PositionFreeBasisIgnoresPositions)
{
    for (const Index d_model : {64, 512, 1024}) {
        const MatrixD basis = positionFreeBasis(d_model, 16);
        ASSERT_EQ(basis.rows(), d_model);
        EXPECT_MATRIX_NEAR(basis.transpose() * basis, MatrixD::Identity(16, 16), 1e-12);
        const MatrixD encoding = positionalEncoding(presetPositionSpan, d_model).cast<double>();
        // What the position-free directions see of PE(0..511), against a typical direction.
        const double leaked = (encoding * basis).norm() / std::sqrt(16.0);
        const double typical = encoding.norm() / std::sqrt(static_cast<double>(d_model));
        EXPECT_LT(leaked, 1e-4 * typical) << d_model;
    }
}

TEST(Presets, PositionalPresetsAskForSmallerWordsAndSinusoids)
{
    Config config = example();
    config.positional = PositionalEncoding::None;
    const Config after = withPreset(config, {0, HeadPresetKind::PreviousToken, 1.0, 1});
    EXPECT_FLOAT_EQ(after.tokenEmbeddingScale, positionalPresetTokenScale);
    EXPECT_EQ(after.positional, PositionalEncoding::None);  // left alone, and reported:
    EXPECT_FALSE(validateConfig(after).empty());
    const auto changes = presetSettingChanges(config, after);
    ASSERT_EQ(changes.size(), 1u);
    EXPECT_NE(changes[0].find("0.03"), std::string::npos) << changes[0];
    const Config meaning = withPreset(example(), {0, HeadPresetKind::SameMeaning, 1.0, 1});
    EXPECT_EQ(meaning.embeddings, EmbeddingKind::Meaning);
    EXPECT_EQ(presetSettingChanges(example(), withPreset(example(), {0, HeadPresetKind::Uniform, 1.0, 1})).size(), 0u);
}

// Share of queries whose largest weight in `head` is on the key with their own index.
double onOwnIndex(const Result& result, Index head)
{
    const MatrixF& a = result.attention.heads[static_cast<std::size_t>(head)].attention;
    Index hits = 0;
    for (Index q = 0; q < a.rows(); ++q) {
        Index best = 0;
        a.row(q).maxCoeff(&best);
        hits += best == std::min(q, a.cols() - 1);
    }
    return static_cast<double>(hits) / static_cast<double>(a.rows());
}

// A preset's job holds only under the settings its construction reads; back at the paper's
// token scale 1, same-position no longer finds the query's index, and the conditions say why.
TEST(Presets, UnmetConditionsSayWhyAPresetNoLongerDoesItsJob)
{
    const HeadPreset position{1, HeadPresetKind::SamePosition, 1.0, 1};
    Config config = withPreset(example(), position);
    EXPECT_TRUE(presetUnmetConditions(config, position).empty());
    const auto doing = compute(config);
    ASSERT_TRUE(doing.ok()) << doing.error();
    EXPECT_GT(onOwnIndex(**doing, 1), 0.8);

    config.tokenEmbeddingScale = 1.0f;
    const auto unmet = presetUnmetConditions(config, position);
    ASSERT_EQ(unmet.size(), 1u);
    EXPECT_NE(unmet[0].find("token scale 1 > 0.1"), std::string::npos) << unmet[0];
    const auto drowned = compute(config);
    ASSERT_TRUE(drowned.ok()) << drowned.error();
    EXPECT_LT(onOwnIndex(**drowned, 1), 0.5);

    config.positional = PositionalEncoding::None;
    EXPECT_EQ(presetUnmetConditions(config, position).size(), 2u);

    const HeadPreset meaning{0, HeadPresetKind::SameMeaning, 1.0, 1};
    Config words = withPreset(example(), meaning);
    EXPECT_TRUE(presetUnmetConditions(words, meaning).empty());
    words.embeddings = EmbeddingKind::Word;
    ASSERT_EQ(presetUnmetConditions(words, meaning).size(), 1u);
    EXPECT_NE(presetUnmetConditions(words, meaning)[0].find("not by meaning"), std::string::npos);
    words.scales.key = 0.0f;
    EXPECT_EQ(presetUnmetConditions(words, meaning).size(), 2u);
    // Uniform has no key to lose.
    EXPECT_TRUE(presetUnmetConditions(words, {2, HeadPresetKind::Uniform, 1.0, 1}).empty());
}

TEST(Presets, ValidationNamesConflictsAndMissingPositions)
{
    Config config = example(64, 4);
    config.presets = {{0, HeadPresetKind::PreviousToken, 1.0, 1}};
    config.positional = PositionalEncoding::Rotary;
    auto issues = validateConfig(config);
    ASSERT_FALSE(issues.empty());
    EXPECT_NE(issues.front().message.find("reads the sinusoidal encoding"), std::string::npos)
        << issues.front().message;

    config = example(64, 4);
    config.keyValueHeadCount = 2;  // heads 1 and 2 share key/value head 1
    config.presets = {{0, HeadPresetKind::SameToken, 1.0, 1}, {1, HeadPresetKind::PreviousToken, 1.0, 1}};
    issues = validateConfig(config);
    ASSERT_FALSE(issues.empty());
    EXPECT_NE(issues.front().message.find("Heads 1 and 2 share key/value head 1"), std::string::npos)
        << issues.front().message;
    config.presets = {{0, HeadPresetKind::SameToken, 1.0, 1}, {1, HeadPresetKind::SameMeaning, 1.0, 1}};
    EXPECT_TRUE(validateConfig(config).empty());  // both want the position-free W^K
}

TEST(Presets, SameConfigSameBits)
{
    const Config config = withPreset(example(), {0, HeadPresetKind::NextToken, 1.0, 1});
    const auto a = compute(config), b = compute(config);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ((*a)->weights->queryProjection, (*b)->weights->queryProjection);
}

}  // namespace
}  // namespace qkv
