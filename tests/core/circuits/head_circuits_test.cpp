// A head's QK and OV circuits against NumPy (tests/data/circuits/make_circuit_fixtures.py), which
// computes them from the definitions on the V x V tables: the top K keys and promoted tokens, the
// eigenvalues of the V x V full OV circuit (which the code takes from the d_k x d_k matrix
// W_O^h (W_U W_E) W_V^h) and the copying score. A tied GPT-2 and an untied grouped-query Qwen3.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <Eigen/Eigenvalues>
#include <nlohmann/json.hpp>

#include "core/circuits/circuit_parts.hpp"
#include "core/circuits/head_circuits.hpp"
#include "core/circuits/vocabulary_products.hpp"
#include "core/common/random.hpp"
#include "core/text/token_pieces.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

using nlohmann::json;

std::string circuitsData(const std::string& name) { return std::string(testDataDir()) + "/circuits/" + name; }

json fixture()
{
    std::ifstream file(circuitsData("circuits.json"));
    return json::parse(file);
}

PretrainedModel openModel(const std::string& name, WeightResidency residency = WeightResidency::Whole)
{
    Expected<PretrainedModel> model = openPretrainedModel(circuitsData(name), {}, residency);
    EXPECT_TRUE(model.ok()) << (model ? "" : model.error());
    return model ? std::move(*model) : PretrainedModel();
}

// Each expected eigenvalue matched to the nearest one not yet matched (conjugate pairs and
// near-equal magnitudes may come in either order).
void expectSameEigenvalues(const json& expected, const std::vector<std::complex<double>>& actual, double tolerance)
{
    ASSERT_EQ(actual.size(), expected.size());
    std::vector<bool> used(actual.size(), false);
    for (const json& pair : expected) {
        const std::complex<double> want(pair[0].get<double>(), pair[1].get<double>());
        std::size_t best = 0;
        double distance = INFINITY;
        for (std::size_t i = 0; i < actual.size(); ++i)
            if (!used[i] && std::abs(actual[i] - want) < distance) distance = std::abs(actual[i] - want), best = i;
        used[best] = true;
        EXPECT_LT(distance, tolerance) << "eigenvalue " << want << " nearest " << actual[best];
    }
    for (std::size_t i = 1; i < actual.size(); ++i)
        EXPECT_GE(std::abs(actual[i - 1]), std::abs(actual[i]) - 1e-12) << "sorted by |lambda| descending";
}

void expectSameTop(const json& expected, const std::vector<TokenCircuit>& actual, const std::vector<std::int32_t>& ids)
{
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t a = 0; a < actual.size(); ++a) {
        EXPECT_EQ(actual[a].id, ids[a]);
        EXPECT_EQ(actual[a].id, expected[a]["id"].get<std::int32_t>());
        const json& top = expected[a]["top"];
        ASSERT_EQ(actual[a].top.size(), top.size());
        for (std::size_t r = 0; r < top.size(); ++r) {
            EXPECT_EQ(actual[a].top[r].id, top[r]["id"].get<std::int32_t>()) << "token " << ids[a] << " rank " << r;
            const double want = top[r]["value"].get<double>();
            EXPECT_NEAR(actual[a].top[r].value, want, 1e-4 * (1.0 + std::abs(want)));
        }
    }
}

class HeadCircuitsFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(HeadCircuitsFixture, EveryHeadMatchesNumPy)
{
    const json all = fixture();
    const json& heads = all["models"][GetParam()]["heads"];
    const PretrainedModel model = openModel(GetParam());
    ASSERT_EQ(noCircuitsReason(model), "");
    const Expected<CircuitBasis> basis = circuitBasis(model);
    ASSERT_TRUE(basis.ok()) << basis.error();
    const auto ids = distinctTokenIds(all["prompt"].get<std::vector<std::int32_t>>());
    EXPECT_EQ(ids, all["distinct"].get<std::vector<std::int32_t>>());
    const Index k = all["k"].get<Index>();
    for (const json& expected : heads) {
        const CircuitHead head{expected["layer"].get<Index>(), expected["head"].get<Index>()};
        SCOPED_TRACE("layer " + std::to_string(head.layer) + " head " + std::to_string(head.head));
        const Expected<HeadSpectrum> spectrum = headSpectrum(model, *basis, head);
        ASSERT_TRUE(spectrum.ok()) << spectrum.error();
        const double scale = std::abs(std::complex<double>(expected["eigenvalues"][0][0].get<double>(),
                                                           expected["eigenvalues"][0][1].get<double>()));
        expectSameEigenvalues(expected["eigenvalues"], spectrum->eigenvalues, 1e-4 * scale);
        EXPECT_NEAR(spectrum->copyingScore, expected["copying_score"].get<double>(), 1e-4);
        const auto qk = tokenCircuits(model, head, CircuitSide::QK, ids, k);
        ASSERT_TRUE(qk.ok()) << qk.error();
        expectSameTop(expected["qk"], *qk, ids);
        const auto ov = tokenCircuits(model, head, CircuitSide::OV, ids, k);
        ASSERT_TRUE(ov.ok()) << ov.error();
        expectSameTop(expected["ov"], *ov, ids);
    }
}

TEST_P(HeadCircuitsFixture, TheExportsAllHeadsAtOnceAgreeWithOneHeadAtATime)
{
    const json all = fixture();
    const json& heads = all["models"][GetParam()]["heads"];
    const PretrainedModel model = openModel(GetParam());
    const Expected<CircuitBasis> basis = circuitBasis(model);
    ASSERT_TRUE(basis.ok()) << basis.error();
    const auto ids = distinctTokenIds(all["prompt"].get<std::vector<std::int32_t>>());
    const Expected<std::vector<HeadCircuits>> every = modelCircuits(model, *basis, ids, all["k"].get<Index>());
    ASSERT_TRUE(every.ok()) << every.error();
    ASSERT_EQ(every->size(), heads.size());
    const Expected<MatrixD> grid = copyingScoreGrid(model, *basis);
    ASSERT_TRUE(grid.ok()) << grid.error();
    for (std::size_t i = 0; i < heads.size(); ++i) {
        const json& expected = heads[i];
        const HeadCircuits& head = (*every)[i];
        EXPECT_EQ(head.head, (CircuitHead{expected["layer"].get<Index>(), expected["head"].get<Index>()}));
        EXPECT_EQ(head.keyValueHead, expected["kv_head"].get<Index>());
        EXPECT_NEAR(head.spectrum.copyingScore, expected["copying_score"].get<double>(), 1e-4);
        EXPECT_NEAR((*grid)(head.head.layer, head.head.head), head.spectrum.copyingScore, 1e-12);
        expectSameTop(expected["qk"], head.qk, ids);
        expectSameTop(expected["ov"], head.ov, ids);
    }
}

TEST_P(HeadCircuitsFixture, AModelReadOneBlockAtATimeGivesTheSameCircuits)
{
    const PretrainedModel whole = openModel(GetParam());
    const PretrainedModel streamed = openModel(GetParam(), WeightResidency::OneBlockAtATime);
    const Expected<CircuitBasis> basis = circuitBasis(whole);
    ASSERT_TRUE(basis.ok()) << basis.error();
    const Expected<MatrixD> a = copyingScoreGrid(whole, *basis);
    const Expected<MatrixD> b = copyingScoreGrid(streamed, *basis);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(*a, *b);
    const auto qa = tokenCircuits(whole, {1, 2}, CircuitSide::QK, {5, 6}, 3);
    const auto qb = tokenCircuits(streamed, {1, 2}, CircuitSide::QK, {5, 6}, 3);
    ASSERT_TRUE(qa.ok() && qb.ok());
    for (std::size_t i = 0; i < qa->size(); ++i)
        for (std::size_t r = 0; r < 3; ++r) EXPECT_EQ((*qa)[i].top[r].id, (*qb)[i].top[r].id);
}

INSTANTIATE_TEST_SUITE_P(Families, HeadCircuitsFixture, ::testing::Values("gpt2_tied", "qwen3_gqa"));

TEST(HeadCircuits, TheTopListCoversTheWholeVocabularyInOrder)
{
    const PretrainedModel model = openModel("qwen3_gqa");
    const Index V = model.recipe.vocabularySize;
    const auto all = tokenCircuits(model, {0, 3}, CircuitSide::OV, {7}, V);
    ASSERT_TRUE(all.ok()) << all.error();
    ASSERT_EQ(static_cast<Index>(all->front().top.size()), V);
    std::vector<bool> seen(static_cast<std::size_t>(V), false);
    for (std::size_t r = 0; r < all->front().top.size(); ++r) {
        const VocabularyEntry& entry = all->front().top[r];
        seen[static_cast<std::size_t>(entry.id)] = true;
        if (r > 0) EXPECT_GE(all->front().top[r - 1].value, entry.value);
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), true), V);
}

TEST(HeadCircuits, BadRequestsAreRefusedWithAMessage)
{
    const PretrainedModel model = openModel("gpt2_tied");
    const Index V = model.recipe.vocabularySize;
    const auto expectError = [](const auto& result, const std::string& words) {
        ASSERT_FALSE(result.ok());
        EXPECT_NE(result.error().find(words), std::string::npos) << result.error();
    };
    expectError(tokenCircuits(model, {0, 0}, CircuitSide::QK, {1}, 0), "K must be");
    expectError(tokenCircuits(model, {0, 0}, CircuitSide::QK, {1}, V + 1), "K must be");
    expectError(tokenCircuits(model, {0, 0}, CircuitSide::OV, {static_cast<std::int32_t>(V)}, 3),
                "outside the vocabulary");
    expectError(tokenCircuits(model, {0, 4}, CircuitSide::QK, {1}, 3), "no head 5");
    expectError(tokenCircuits(model, {7, 0}, CircuitSide::QK, {1}, 3), "no attention layer 7");
    const Expected<CircuitBasis> basis = circuitBasis(model);
    ASSERT_TRUE(basis.ok());
    expectError(headSpectrum(model, *basis, {2, 0}), "no attention layer 2");
    expectError(modelCircuits(model, *basis, {1, -1}, 3), "outside the vocabulary");
    const CircuitBasis none;
    expectError(headSpectrum(model, none, {0, 0}), "not this model's");
    expectError(copyingScoreGrid(model, none), "not this model's");
    expectError(modelCircuits(model, none, {1}, 3), "not this model's");
    std::atomic<bool> stop{true};
    expectError(circuitBasis(model, &stop), "stopped");
    expectError(copyingScoreGrid(model, *basis, [](Index, Index) { return false; }), "stopped");
}

TEST(HeadCircuits, TheSpectrumsRouteAgreesWithEigensEigenSolver)
{
    // LAPACK's dgeev where OpenBLAS ships it, else Eigen's: either way Eigen's eigenvalues.
    SplitMix64 random(51);
    for (const Index n : {1, 7, 64, 128}) {
        MatrixD m(n, n);
        for (Index i = 0; i < m.size(); ++i) m.data()[i] = random.uniform(-1.0, 1.0);
        const HeadSpectrum spectrum = circuits::spectrumOf(m);
        const Eigen::EigenSolver<Eigen::MatrixXd> solver(Eigen::MatrixXd(m), false);
        json expected = json::array();
        double real = 0.0, magnitude = 0.0;
        for (const std::complex<double>& z : solver.eigenvalues()) {
            expected.push_back({z.real(), z.imag()});
            real += z.real();
            magnitude += std::abs(z);
        }
        expectSameEigenvalues(expected, spectrum.eigenvalues, 1e-9 * static_cast<double>(n));
        EXPECT_NEAR(spectrum.copyingScore, real / magnitude, 1e-9);
    }
    EXPECT_TRUE(std::isnan(circuits::spectrumOf(MatrixD::Zero(3, 3)).copyingScore));
}

TEST(HeadCircuits, EveryRouteOfTheVocabularyProductsGivesEigensProducts)
{
    // 5,000 x 96 tables: above the product routes' minimum width, several blocks of rows.
    SplitMix64 random(7);
    const auto table = [&random](Index rows, Index cols) {
        MatrixF m(rows, cols);
        for (Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(random.uniform(-1.0, 1.0));
        return m;
    };
    const MatrixF embedding = table(5000, 96), readout = table(5000, 96), directions = table(96, 7);
    const MatrixD tied = embedding.cast<double>().transpose() * embedding.cast<double>();
    const MatrixD untied = readout.cast<double>().transpose() * embedding.cast<double>();
    for (const bool panels : {false, true}) {
        const Expected<MatrixF> a = circuits::vocabularyGram(embedding, embedding, true, nullptr, panels);
        const Expected<MatrixF> b = circuits::vocabularyGram(readout, embedding, false, nullptr, panels);
        ASSERT_TRUE(a.ok() && b.ok());
        EXPECT_LT((a->cast<double>() - tied).cwiseAbs().maxCoeff(), 1e-2) << "panels " << panels;
        EXPECT_LT((b->cast<double>() - untied).cwiseAbs().maxCoeff(), 1e-2) << "panels " << panels;
    }
    const MatrixD scores = embedding.cast<double>() * directions.cast<double>();  // 5000 x 7
    const auto top = circuits::topRowsPerColumn(embedding, directions, 4);
    ASSERT_EQ(top.size(), 7u);
    for (Index c = 0; c < 7; ++c) {
        std::vector<Index> order(5000);
        for (Index v = 0; v < 5000; ++v) order[static_cast<std::size_t>(v)] = v;
        std::partial_sort(order.begin(), order.begin() + 4, order.end(),
                          [&](Index x, Index y) { return scores(x, c) > scores(y, c); });
        for (std::size_t r = 0; r < 4; ++r) {
            EXPECT_EQ(top[static_cast<std::size_t>(c)][r].id, order[r]) << c << "," << r;
            EXPECT_NEAR(top[static_cast<std::size_t>(c)][r].value, scores(order[r], c), 1e-4);
        }
    }
}

TEST(HeadCircuits, TokensAreShownAsTheChipsShowThem)
{
    // A tokenizer.json (asked id by id) and GPT-2's vocab.json (a table): the piece as displayed.
    namespace fs = std::filesystem;
    const fs::path folder = fs::path(::testing::TempDir()) / "circuits-llama-text";
    fs::remove_all(folder);
    fs::create_directories(folder);
    const std::string pretrained = std::string(testDataDir()) + "/pretrained/";
    for (const char* name : {"llama/config.json", "llama/model.safetensors", "llama_text/tokenizer.json",
                             "llama_text/tokenizer_config.json"})
        fs::copy_file(pretrained + name, folder / fs::path(name).filename());
    for (const std::string& path : {folder.string(), pretrained + "gpt2"}) {
        Expected<PretrainedModel> model = openPretrainedModel(path);
        ASSERT_TRUE(model.ok()) << model.error();
        ASSERT_TRUE(model->tokenizer.has_value()) << path;
        const std::vector<std::string> table = tokenPieceTable(*model->tokenizer, model->recipe.vocabularySize);
        const auto top = tokenCircuits(*model, {0, 1}, CircuitSide::OV, {3, 5}, 6);
        ASSERT_TRUE(top.ok()) << top.error();
        std::size_t shown = 0;
        for (const TokenCircuit& circuit : *top)
            for (const VocabularyEntry& entry : circuit.top) {
                const std::string& piece = table[static_cast<std::size_t>(entry.id)];
                EXPECT_EQ(entry.token, piece.empty() ? piece : model->tokenizer->displayPiece(piece)) << entry.id;
                shown += entry.token.empty() ? 0 : 1;
            }
        EXPECT_GT(shown, 0u) << path;
    }
}

TEST(HeadCircuits, DistinctTokensKeepTheOrderOfFirstAppearance)
{
    EXPECT_EQ(distinctTokenIds({50256, 64, 65, 64, 50256, 66}), (std::vector<std::int32_t>{50256, 64, 65, 66}));
    EXPECT_TRUE(distinctTokenIds({}).empty());
}

}  // namespace
}  // namespace qkv
