// Meaning embeddings: the documented formula, the fallback to word vectors, determinism, the
// key relation, the measured word/translation similarity, and a same-meaning cross-attention head.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "core/common/decompositions.hpp"
#include "core/common/random.hpp"
#include "core/embedding/embeddings.hpp"
#include "core/embedding/meaning_embeddings.hpp"
#include "core/pipeline/compute.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

const double conceptWeight = std::sqrt(1.0 - meaningLanguageWeight * meaningLanguageWeight);

double cosine(const RowVectorF& a, const RowVectorF& b)
{
    const Eigen::RowVectorXd x = a.cast<double>(), y = b.cast<double>();
    return x.dot(y) / (x.norm() * y.norm());
}

// The row meaningEmbeddings should give a word of `concept` in language `tag` (docs/lexicon.md):
// sqrt(1 - alpha^2) m(c) + alpha l(L), from the public m and l.
RowVectorF expectedRow(const std::string& concept_, const std::string& tag, Index d_model, std::uint64_t seed)
{
    return (conceptWeight * conceptVector(concept_, d_model, seed).cast<double>() +
            meaningLanguageWeight * languageVector(tag, d_model, seed).cast<double>())
        .cast<float>();
}

TEST(MeaningEmbeddings, FollowTheDocumentedFormula)
{
    const Index d_model = 32;
    const std::uint64_t seed = 5;
    const MatrixF x = meaningEmbeddings(tokenize("Le chat noir"), d_model, seed);
    ASSERT_EQ(x.rows(), 3);
    ASSERT_EQ(x.cols(), d_model);
    EXPECT_MATRIX_NEAR(x.row(0), expectedRow("the", "fr", d_model, seed), 1e-6);
    EXPECT_MATRIX_NEAR(x.row(1), expectedRow("cat", "fr", d_model, seed), 1e-6);
    EXPECT_MATRIX_NEAR(x.row(2), expectedRow("black", "fr", d_model, seed), 1e-6);
    EXPECT_EQ(meaningEmbeddings({}, d_model, seed).rows(), 0);
    EXPECT_EQ(meaningEmbeddings({}, d_model, seed).cols(), d_model);
}

TEST(MeaningEmbeddings, TranslationsDifferOnlyByTheirLanguagePart)
{
    const Index d_model = 64;
    const std::uint64_t seed = 2017;
    const MatrixF en = meaningEmbeddings(tokenize("The black cat sat on the mat."), d_model, seed);
    const MatrixF fr = meaningEmbeddings(tokenize("Le chat noir s'est assis sur le tapis."), d_model, seed);
    const MatrixF de = meaningEmbeddings(tokenize("Die schwarze Katze saß auf der Matte."), d_model, seed);
    const RowVectorF enToFr = (meaningLanguageWeight * (languageVector("fr", d_model, seed).cast<double>() -
                                                        languageVector("en", d_model, seed).cast<double>()))
                                  .cast<float>();
    const RowVectorF enToDe = (meaningLanguageWeight * (languageVector("de", d_model, seed).cast<double>() -
                                                        languageVector("en", d_model, seed).cast<double>()))
                                  .cast<float>();
    // cat: en row 2, fr row 1, de row 2; black: en 1, fr 2, de 1; mat: en 6, fr 7, de 6.
    EXPECT_MATRIX_NEAR(fr.row(1) - en.row(2), enToFr, 1e-5);
    EXPECT_MATRIX_NEAR(fr.row(2) - en.row(1), enToFr, 1e-5);
    EXPECT_MATRIX_NEAR(fr.row(7) - en.row(6), enToFr, 1e-5);
    EXPECT_MATRIX_NEAR(de.row(2) - en.row(2), enToDe, 1e-5);
    EXPECT_MATRIX_NEAR(de.row(1) - en.row(1), enToDe, 1e-5);
    EXPECT_MATRIX_NEAR(fr.row(8) - en.row(7), enToFr, 1e-5);  // "." takes each sentence's language
    // A word and its translation are close; unrelated words are not.
    EXPECT_GT(cosine(fr.row(1), en.row(2)), 0.7);
    EXPECT_LT(std::abs(cosine(fr.row(1), en.row(1))), 0.5);
}

TEST(MeaningEmbeddings, UnknownWordsAndNumbersAreExactlyTheirWordVectors)
{
    const std::vector<Token> tokens = tokenize("Le Zorblax de 1992 QUUX chat");
    const MatrixF meaning = meaningEmbeddings(tokens, 48, 11);
    const MatrixF words = tokenEmbeddings(tokens, 48, 11);
    EXPECT_EQ(RowVectorF(meaning.row(1)), RowVectorF(words.row(1)));  // Zorblax: same bits
    EXPECT_EQ(RowVectorF(meaning.row(3)), RowVectorF(words.row(3)));  // 1992
    EXPECT_EQ(RowVectorF(meaning.row(4)), RowVectorF(words.row(4)));  // QUUX
    EXPECT_GT((meaning.row(5) - words.row(5)).norm(), 1.0f);          // chat is a concept
    // With an empty lexicon every token is unknown: meaning embeddings are word embeddings.
    EXPECT_EQ(meaningEmbeddings(tokens, 48, 11, Lexicon{}), words);
}

// The words the app marks on the chips: exactly those embedded by their spelling alone.
TEST(MeaningEmbeddings, OutsideLexiconIsExactlyTheWordsEmbeddedByTheirSpelling)
{
    const std::vector<Token> tokens = tokenize("Le Zorblax de 1992 QUUX chat .");
    const std::vector<bool> outside = outsideLexicon(tokens);
    EXPECT_EQ(outside, (std::vector<bool>{false, true, false, false, true, false, false}));
    // Numbers are not marked: they have their own meaning in every language.
    const MatrixF meaning = meaningEmbeddings(tokens, 48, 11), words = tokenEmbeddings(tokens, 48, 11);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (!outside[i]) continue;
        EXPECT_EQ(RowVectorF(meaning.row(static_cast<Index>(i))), RowVectorF(words.row(static_cast<Index>(i))));
    }
    // With an empty lexicon every word is outside it, the number still not.
    EXPECT_EQ(outsideLexicon(tokens, Lexicon{}), (std::vector<bool>{true, true, true, false, true, true, true}));
}

TEST(MeaningEmbeddings, SameSeedSameBitsAnotherSeedDiffers)
{
    const std::vector<Token> tokens =
        tokenize("Das Abkommen über den Europäischen Wirtschaftsraum wurde im August 1992 unterzeichnet.");
    const MatrixF a = meaningEmbeddings(tokens, 64, 1);
    const MatrixF b = meaningEmbeddings(tokens, 64, 1);
    const MatrixF c = meaningEmbeddings(tokens, 64, 2);
    EXPECT_EQ(a, b);
    EXPECT_GT((a - c).norm(), 10.0f);
    // embedSentence's "by meaning" option is this function.
    EXPECT_EQ(embedSentence(tokens, EmbeddingOptions{64, 1, true, 1.0f, false}), a);
}

TEST(MeaningEmbeddings, EntriesHaveUnitVarianceLikeWordEmbeddings)
{
    std::string text;
    for (std::size_t c = 0; c < Lexicon::builtIn().conceptCount(); ++c)
        text += Lexicon::builtIn().conceptAt(c).id + " ";
    const MatrixF x = meaningEmbeddings(tokenize(text), 64, 3);
    const double mean = x.cast<double>().mean();
    const double variance = (x.cast<double>().array() - mean).square().mean();
    std::printf("[ measured ] meaning embeddings of %td tokens: mean %.4f, variance %.4f\n", x.rows(), mean, variance);
    // One language vector is shared by the known tokens, so the mean wanders by about
    // alpha * |mean of l(L)| ~ 0.3 / sqrt(64); the variance stays near 1 (alpha^2 + (1 - alpha^2)).
    EXPECT_NEAR(mean, 0.0, 0.15);
    EXPECT_NEAR(variance, 1.0, 0.15);
}

// Two tokens have the same key exactly when their rows, minus their language part, are equal.
TEST(MeaningKeys, SameKeyExactlyWhenSameConceptVector)
{
    const Index d_model = 32;
    const std::uint64_t seed = 7;
    const std::vector<std::string> sentences = {
        "The cat sat on the mat because it was tired.",
        "Le chat s'est assis sur le tapis parce qu'il était fatigué.",
        "Die schwarze Katze saß auf der Matte, weil sie müde war.",
        "L'accord sur la zone économique européenne a été signé en août 1992.",
        "they die, die Katze, Zorblax zorblax 1992 2 deux",
    };
    std::vector<std::string> keys;
    std::vector<RowVectorF> conceptParts;
    for (const std::string& sentence : sentences) {
        const std::vector<Token> tokens = tokenize(sentence);
        const MatrixF x = meaningEmbeddings(tokens, d_model, seed);
        const std::vector<std::string> sentenceKeys = meaningKeys(tokens);
        const std::vector<TokenMeaning> meanings = Lexicon::builtIn().meanings(tokens);
        ASSERT_EQ(sentenceKeys.size(), tokens.size());
        for (std::size_t t = 0; t < tokens.size(); ++t) {
            EXPECT_EQ(sentenceKeys[t], meanings[t].key);
            RowVectorF part = x.row(static_cast<Index>(t));
            if (meanings[t].language >= 0) {
                const std::string& tag = Lexicon::builtIn().languages()[static_cast<std::size_t>(meanings[t].language)];
                part = (part.cast<double>() - meaningLanguageWeight * languageVector(tag, d_model, seed).cast<double>())
                           .cast<float>();
            }
            keys.push_back(sentenceKeys[t]);
            conceptParts.push_back(part);
        }
    }
    std::size_t samePairs = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        for (std::size_t j = i + 1; j < keys.size(); ++j) {
            const float distance = (conceptParts[i] - conceptParts[j]).norm();
            if (keys[i] == keys[j]) {
                ++samePairs;
                EXPECT_LT(distance, 1e-4f) << keys[i];
            } else {
                EXPECT_GT(distance, 1.0f) << keys[i] << " vs " << keys[j];
            }
        }
    }
    EXPECT_GT(samePairs, 30u);
}

// The measured similarity of a word and its translation (docs/lexicon.md quotes these lines).
// A sentence of one word can be guessed as another language ("die"), so this compares the
// formula's rows; FollowTheDocumentedFormula ties them to meaningEmbeddings.
TEST(MeaningEmbeddings, WordAndTranslationCosineIsAboutOneMinusAlphaSquared)
{
    const std::uint64_t seed = 2017;
    const Lexicon& lexicon = Lexicon::builtIn();
    const std::vector<std::string>& tags = lexicon.languages();
    const double alphaSquared = meaningLanguageWeight * meaningLanguageWeight;
    for (const Index d_model : {64, 512}) {
        double sum = 0.0, minimum = 1.0, maximum = -1.0, unrelatedSame = 0.0, unrelatedOther = 0.0;
        std::size_t pairs = 0, unrelatedPairs = 0;
        for (std::size_t c = 0; c < lexicon.conceptCount(); ++c) {
            const LexiconConcept& entry = lexicon.conceptAt(c);
            for (std::size_t a = 0; a < tags.size(); ++a) {
                for (std::size_t b = a + 1; b < tags.size(); ++b) {
                    if (entry.words[a].empty() || entry.words[b].empty()) continue;
                    const double similarity = cosine(expectedRow(entry.id, tags[a], d_model, seed),
                                                     expectedRow(entry.id, tags[b], d_model, seed));
                    sum += similarity;
                    minimum = std::min(minimum, similarity);
                    maximum = std::max(maximum, similarity);
                    ++pairs;
                }
            }
            if (c + 1 < lexicon.conceptCount()) {  // an unrelated concept: the next line of the file
                const std::string& next = lexicon.conceptAt(c + 1).id;
                unrelatedSame +=
                    cosine(expectedRow(entry.id, "en", d_model, seed), expectedRow(next, "en", d_model, seed));
                unrelatedOther +=
                    cosine(expectedRow(entry.id, "en", d_model, seed), expectedRow(next, "fr", d_model, seed));
                ++unrelatedPairs;
            }
        }
        const double mean = sum / static_cast<double>(pairs);
        unrelatedSame /= static_cast<double>(unrelatedPairs);
        unrelatedOther /= static_cast<double>(unrelatedPairs);
        std::printf(
            "[ measured ] d_model %td, seed 2017: cos(word, translation) over %zu pairs: mean %.3f, min %.3f, "
            "max %.3f (1 - alpha^2 = %.2f); unrelated words: %.3f in one language, %.3f across languages\n",
            d_model, pairs, mean, minimum, maximum, 1.0 - alphaSquared, unrelatedSame, unrelatedOther);
        ASSERT_GT(pairs, 600u);
        // E[cos] ~ 1 - alpha^2 = 0.91. Per pair, the cross terms alpha sqrt(1 - alpha^2) m.(l_a + l_b) / d have a
        // standard deviation of 0.286 sqrt(2 / d): 0.018 at d = 512, 0.05 at d = 64; alpha^2 l_a.l_b / d is one
        // offset per language pair, 0.09 / sqrt(d) in size. Bounds: about 4 standard deviations.
        const double spread = 0.286 * std::sqrt(2.0 / static_cast<double>(d_model));
        EXPECT_NEAR(mean, 1.0 - alphaSquared, 0.09 / std::sqrt(static_cast<double>(d_model)) * 2.0 + 0.01);
        EXPECT_GT(minimum, 1.0 - alphaSquared - 4.0 * spread - 0.03);
        EXPECT_LT(maximum, 1.0);
        // Unrelated words share only the language part: alpha^2 in one language, 0 across languages.
        EXPECT_NEAR(unrelatedSame, alphaSquared, 0.03);
        EXPECT_NEAR(unrelatedOther, 0.0, 0.03);
    }
}

// A crude same-meaning head: W_i^Q = W_i^K = c B with B a random d_model x d_k orthonormal basis,
// so the score of (q, k) is c^2 (x_q B)(x_k B)^T / sqrt(d_k), largest when x_q and x_k share m(c).
AttentionWeights sameMeaningWeights(Index d_model, Index headCount, std::uint64_t seed, float scale)
{
    const Index d_k = d_model / headCount;
    SplitMix64 random(seed);
    MatrixD gaussian(d_model, d_k);
    for (Index r = 0; r < d_model; ++r)
        for (Index c = 0; c < d_k; ++c) gaussian(r, c) = random.normal();
    const Eigen::HouseholderQR<MatrixD> qr(gaussian);
    const MatrixD basis = qr.householderQ() * MatrixD::Identity(d_model, d_k);  // d_model x d_k, orthonormal columns
    AttentionWeights weights;
    weights.queryProjection = MatrixF::Zero(d_model, d_model);
    weights.keyProjection = MatrixF::Zero(d_model, d_model);
    weights.queryProjection.leftCols(d_k) = (scale * basis).cast<float>();
    weights.keyProjection.leftCols(d_k) = (scale * basis).cast<float>();
    weights.valueProjection = MatrixF::Identity(d_model, d_model);
    weights.outputProjection = MatrixF::Identity(d_model, d_model);
    return weights;
}

struct CrossAttentionRun {
    std::vector<std::string> queryLabels, keyLabels;
    MatrixF attention;  // n_q x n_k, head 1
};

CrossAttentionRun runSameMeaningHead(Index d_model, Index headCount, std::uint64_t seed)
{
    Config config;
    config.sourceText = "The black cat sat on the mat.";
    config.targetText = "Le chat noir s'est assis sur le tapis.";
    config.mode = AttentionMode::Cross;
    config.d_model = d_model;
    config.headCount = headCount;
    config.seed = seed;
    config.embeddings = EmbeddingKind::Meaning;
    config.positional = PositionalEncoding::None;
    UserInputs inputs;
    inputs.weights = std::make_shared<const AttentionWeights>(sameMeaningWeights(d_model, headCount, seed + 1, 2.0f));
    const auto result = compute(config, inputs);
    if (!result) {
        ADD_FAILURE() << result.error();
        return {};
    }
    return {(*result)->queryLabels, (*result)->keyLabels, (*result)->attention.heads[0].attention};
}

// French query -> the English keys it should look at (both "the" when the word is an article).
const std::vector<std::pair<std::string, std::vector<Index>>> expectedAlignment = {
    {"Le", {0, 5}}, {"chat", {2}},  {"noir", {1}},  {"assis", {3}},
    {"sur", {4}},   {"le", {0, 5}}, {"tapis", {6}}, {".", {7}},
};

TEST(MeaningEmbeddings, SameMeaningCrossAttentionHeadAlignsFrenchWithEnglish)
{
    const CrossAttentionRun run = runSameMeaningHead(64, 4, 2017);  // d_k = 16, the app's default shape
    ASSERT_EQ(run.queryLabels.size(), 9u);
    ASSERT_EQ(run.keyLabels.size(), 8u);
    for (Index q = 0; q < run.attention.rows(); ++q) {
        Index best = 0;
        const float weight = run.attention.row(q).maxCoeff(&best);
        std::printf("[ measured ] %-6s -> %-6s weight %.3f\n", run.queryLabels[static_cast<std::size_t>(q)].c_str(),
                    run.keyLabels[static_cast<std::size_t>(best)].c_str(), weight);
        for (const auto& [word, keys] : expectedAlignment) {
            if (run.queryLabels[static_cast<std::size_t>(q)] != word) continue;
            EXPECT_NE(std::find(keys.begin(), keys.end(), best), keys.end())
                << word << " looks most at '" << run.keyLabels[static_cast<std::size_t>(best)] << "'";
        }
    }
    // Without positions, the two "the" keys are the same vector: "le" splits its weight evenly.
    EXPECT_FLOAT_EQ(run.attention(6, 0), run.attention(6, 5));
}

// How often the crude head aligns every word, over many seeds: the score of the right key is
// ~ (1 - alpha^2) chi^2(d_k) against N(0, d_k)-sized scores of the others, so small d_k errs now and then.
TEST(MeaningEmbeddings, SameMeaningHeadAlignmentRateOverSeeds)
{
    for (const Index headCount : {4, 2}) {
        std::size_t right = 0, total = 0;
        for (std::uint64_t seed = 1; seed <= 200; ++seed) {
            const CrossAttentionRun run = runSameMeaningHead(64, headCount, seed);
            ASSERT_EQ(run.queryLabels.size(), 9u);
            for (Index q = 0; q < run.attention.rows(); ++q) {
                for (const auto& [word, keys] : expectedAlignment) {
                    if (run.queryLabels[static_cast<std::size_t>(q)] != word) continue;
                    Index best = 0;
                    run.attention.row(q).maxCoeff(&best);
                    right += std::find(keys.begin(), keys.end(), best) != keys.end();
                    ++total;
                }
            }
        }
        const double rate = static_cast<double>(right) / static_cast<double>(total);
        std::printf(
            "[ measured ] d_model 64, d_k %td: %zu of %zu French words look most at their English word (%.2f%%)\n",
            64 / headCount, right, total, 100.0 * rate);
        EXPECT_GT(rate, headCount == 4 ? 0.95 : 0.99);
    }
}

}  // namespace
}  // namespace qkv
