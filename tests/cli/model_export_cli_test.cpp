// `qkv-studio export --layer all|N --ablate L.H` on whole pretrained models, end to end, against
// the independent PyTorch references of tests/data/pretrained (make_pretrained_fixtures.py).
// The BERT fixture's ids are [CLS] d [MASK] super / [MASK] [SEP]: the sentence below.

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "core/io/npy.hpp"
#include "support/test_paths.hpp"

namespace qkv::testing {
namespace {

constexpr const char* kBertSentence = "d [MASK] super / [MASK]";

std::string pretrained(const std::string& name) { return std::string(qkv::testDataDir()) + "/pretrained/" + name; }

nlohmann::json readJson(const std::string& path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in, nullptr, false);
}

MatrixD reference(const std::string& name)
{
    Expected<MatrixD> matrix = readNpyMatrixD(pretrained(name));
    EXPECT_TRUE(matrix) << matrix.error();
    return matrix ? *matrix : MatrixD();
}

MatrixD asMatrix(const nlohmann::json& rows)
{
    MatrixD m(static_cast<Index>(rows.size()), rows.empty() ? 0 : static_cast<Index>(rows[0].size()));
    for (Index r = 0; r < m.rows(); ++r)
        for (Index c = 0; c < m.cols(); ++c) m(r, c) = rows[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
    return m;
}

// Every head of every layer against the reference's stacked (h n_q) x n_k attention.
void expectLayersMatch(const nlohmann::json& layers, const std::string& prefix, int count)
{
    ASSERT_EQ(static_cast<int>(layers.size()), count);
    for (int l = 0; l < count; ++l) {
        const MatrixD expected = reference("bert/" + prefix + "attention_" + std::to_string(l) + ".npy");
        const nlohmann::json& heads = layers[static_cast<std::size_t>(l)]["heads"];
        const Index n = expected.cols();
        ASSERT_EQ(static_cast<Index>(heads.size()) * n, expected.rows());
        for (std::size_t h = 0; h < heads.size(); ++h) {
            const MatrixD shown = asMatrix(heads[h]["attention"]);
            ASSERT_EQ(shown.rows(), n);
            EXPECT_LT((shown - expected.middleRows(static_cast<Index>(h) * n, n)).cwiseAbs().maxCoeff(), 1e-4)
                << "layer " << l << " head " << h + 1;
        }
    }
}

std::vector<double> softmax(const MatrixD& logits, Index row)
{
    const double top = logits.row(row).maxCoeff();
    std::vector<double> p(static_cast<std::size_t>(logits.cols()));
    double sum = 0.0;
    for (Index v = 0; v < logits.cols(); ++v) sum += p[static_cast<std::size_t>(v)] = std::exp(logits(row, v) - top);
    for (double& x : p) x /= sum;
    return p;
}

// The top 5 of the reference logits at each predicted position, ids and probabilities.
// A token's piece is null only for an id the tokenizer does not list (`listsEveryId` false).
void expectPredictionsMatch(const nlohmann::json& predictions, const MatrixD& logits, const std::vector<int>& positions,
                            bool listsEveryId = true)
{
    ASSERT_EQ(predictions.size(), positions.size());
    for (std::size_t i = 0; i < positions.size(); ++i) {
        EXPECT_EQ(predictions[i]["position"], positions[i]);
        const std::vector<double> p = softmax(logits, positions[i]);
        std::vector<int> order(p.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return p[a] > p[b]; });
        const nlohmann::json& top = predictions[i]["top"];
        ASSERT_EQ(top.size(), 5u);
        for (std::size_t k = 0; k < 5; ++k) {
            EXPECT_EQ(top[k]["id"], order[k]) << "position " << positions[i] << ", rank " << k + 1;
            EXPECT_NEAR(top[k]["probability"].get<double>(), p[static_cast<std::size_t>(order[k])], 1e-5);
            if (listsEveryId || !top[k]["token"].is_null()) {
                EXPECT_FALSE(top[k]["token"].get<std::string>().empty());
            }
        }
    }
}

// Abnar & Zuidema's rollout of the reference attention, written out here on its own: per layer
// the heads' mean plus the identity, rows renormalised, multiplied through the layers.
MatrixD referenceRollout(int layers, int heads)
{
    MatrixD rollout;
    for (int l = 0; l < layers; ++l) {
        const MatrixD stacked = reference("bert/attention_" + std::to_string(l) + ".npy");
        const Index n = stacked.cols();
        MatrixD mean = MatrixD::Identity(n, n);
        for (int h = 0; h < heads; ++h) mean += stacked.middleRows(h * n, n) / heads;
        for (Index r = 0; r < n; ++r) mean.row(r) /= mean.row(r).sum();
        rollout = l == 0 ? mean : MatrixD(mean * rollout);
    }
    return rollout;
}

// A model folder as Hugging Face caches it opens in one step, for every --weights use.
TEST_F(ExportCli, AModelFolderOpensAsItsCheckpoint)
{
    const CommandRun listed = run({"export", "--weights", pretrained("bert"), "--list-layers"});
    EXPECT_EQ(listed.status, 0) << listed.output;
    EXPECT_EQ(listed.output,
              "0\tbert.encoder.layer.0.attention\tself\t4\t4\t32\n"
              "1\tbert.encoder.layer.1.attention\tself\t4\t4\t32\n"
              "2\tbert.encoder.layer.2.attention\tself\t4\t4\t32\n");
    std::filesystem::create_directory(path("empty-model"));
    const CommandRun empty = run({"export", "--weights", path("empty-model"), "--list-layers"});
    EXPECT_EQ(empty.status, 1) << empty.output;
    EXPECT_NE(empty.output.find("a model folder needs model.safetensors"), std::string::npos) << empty.output;
}

TEST_F(ExportCli, EveryLayerOfAWholeBertMatchesPyTorchWithRolloutAndMaskFills)
{
    const CommandRun all = run({"export", "--weights", pretrained("bert"), "--layer", "all", "--source", kBertSentence,
                                "--format", "json", "--out", path("all.json")});
    ASSERT_EQ(all.status, 0) << all.output;
    const nlohmann::json json = readJson(path("all.json"));
    ASSERT_FALSE(json.is_discarded());
    EXPECT_EQ(json["format"], "qkv-studio-model-export");
    EXPECT_EQ(json["tokens"]["source"], nlohmann::json({"[CLS]", "d", "[MASK]", "super", "/", "[MASK]", "[SEP]"}));
    expectLayersMatch(json["layers"], "", 3);
    const nlohmann::json& layer = json["layers"][1];
    EXPECT_EQ(layer["name"], "bert.encoder.layer.1.attention");
    EXPECT_EQ(layer["kind"], "self");
    EXPECT_EQ(layer["index"], 1);
    // Value norms: a head's is its attention times ||f(x_j)||, so zero exactly where A is.
    const MatrixD attention = asMatrix(layer["heads"][0]["attention"]);
    const MatrixD norms = asMatrix(layer["heads"][0]["value_norms"]);
    ASSERT_EQ(norms.rows(), 7);
    ASSERT_EQ(norms.cols(), 7);
    for (Index j = 0; j < 7; ++j) {
        const double ratio = norms(0, j) / attention(0, j);
        for (Index q = 1; q < 7; ++q) EXPECT_NEAR(norms(q, j), ratio * attention(q, j), 1e-4 * ratio);
    }
    EXPECT_EQ(asMatrix(layer["value_norms"]).rows(), 7);
    const MatrixD rollout = asMatrix(json["rollout"]);
    EXPECT_LT((rollout - referenceRollout(3, 4)).cwiseAbs().maxCoeff(), 1e-4);
    expectPredictionsMatch(json["predictions"], reference("bert/logits.npy"), {2, 5});
}

TEST_F(ExportCli, HeadsSwitchedOffAnywhereChangeTheLayersAfterThemAsInPyTorch)
{
    // run.json's "ablated": layer 1 head 2 and layer 0 head 0, from 0; on the command line heads
    // count from 1.
    const CommandRun all = run({"export", "--weights", pretrained("bert"), "--layer", "all", "--source", kBertSentence,
                                "--ablate", "1.3,0.1", "--format", "json", "--out", path("ablated.json")});
    ASSERT_EQ(all.status, 0) << all.output;
    const nlohmann::json json = readJson(path("ablated.json"));
    EXPECT_EQ(json["ablated_heads"], nlohmann::json({"0.1", "1.3"}));
    expectLayersMatch(json["layers"], "ablated_", 3);
    EXPECT_EQ(json["layers"][1]["heads"][2]["ablation"]["ablated"], true);
    expectPredictionsMatch(json["predictions"], reference("bert/ablated_logits.npy"), {2, 5});

    // One layer with the model's own input is that layer of the whole run, switched-off heads
    // before it included; a bare head number is one of the chosen layer's.
    const CommandRun one =
        run({"export", "--weights", pretrained("bert/model.safetensors"), "--layer", "2", "--embeddings", "model",
             "--source", kBertSentence, "--ablate", "0.1,3", "--format", "json", "--out", path("layer2.json")});
    ASSERT_EQ(one.status, 0) << one.output;
    const nlohmann::json layer2 = readJson(path("layer2.json"));
    EXPECT_EQ(layer2["config"]["weights_layer"], "bert.encoder.layer.2.attention");
    EXPECT_EQ(layer2["config"]["ablated_heads"], nlohmann::json({3}));
    const CommandRun both = run({"export", "--weights", pretrained("bert"), "--layer", "all", "--source", kBertSentence,
                                 "--ablate", "0.1,2.3", "--format", "json", "--out", path("both.json")});
    ASSERT_EQ(both.status, 0) << both.output;
    const nlohmann::json whole = readJson(path("both.json"));
    for (std::size_t h = 0; h < 4; ++h)
        EXPECT_EQ(layer2["heads"][h]["attention"], whole["layers"][2]["heads"][h]["attention"]) << h;
}

TEST_F(ExportCli, AGpt2PredictsEveryPositionOfTheTargetSentence)
{
    const CommandRun all = run({"export", "--weights", pretrained("gpt2"), "--layer", "all", "--target", "a cat",
                                "--format", "json", "--out", path("gpt2.json")});
    ASSERT_EQ(all.status, 0) << all.output;
    const nlohmann::json json = readJson(path("gpt2.json"));
    const std::size_t n = json["tokens"]["target"].size();
    ASSERT_GT(n, 0u);
    ASSERT_EQ(json["predictions"].size(), n);
    for (const nlohmann::json& position : json["predictions"]) {
        double previous = 1.0, sum = 0.0;
        for (const nlohmann::json& token : position["top"]) {
            EXPECT_LE(token["probability"].get<double>(), previous);
            previous = token["probability"];
            sum += previous;
        }
        EXPECT_LE(sum, 1.0 + 1e-9);
    }
    for (const nlohmann::json& layer : json["layers"]) EXPECT_EQ(layer["kind"], "causal");
    // Causal rollout: nothing flows from a later token.
    const MatrixD rollout = asMatrix(json["rollout"]);
    ASSERT_EQ(rollout.rows(), static_cast<Index>(n));
    for (Index q = 0; q < rollout.rows(); ++q)
        for (Index k = q + 1; k < rollout.cols(); ++k) EXPECT_EQ(rollout(q, k), 0.0);
}

// --generate N: the prompt continued greedily (the reference decode itself is checked in
// tests/core/pipeline/generation_test.cpp); every new token is the most likely one after the
// position before it, with that probability, and the tokens and every layer cover it.
TEST_F(ExportCli, AGpt2ContinuesItsPromptAndEveryLayerCoversTheNewTokens)
{
    const auto exportGenerated = [&](const std::string& out, std::vector<std::string> extra) {
        std::vector<std::string> arguments{"export", "--weights", pretrained("gpt2"), "--embeddings", "model",
                                           "--layer", "all", "--target", "a cat", "--format", "json", "--out", path(out)};
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        return run(arguments);
    };
    const CommandRun plain = exportGenerated("plain.json", {});
    ASSERT_EQ(plain.status, 0) << plain.output;
    const std::size_t prompt = readJson(path("plain.json"))["tokens"]["target"].size();
    const CommandRun greedy = exportGenerated("greedy.json", {"--generate", "6"});
    ASSERT_EQ(greedy.status, 0) << greedy.output;
    const nlohmann::json json = readJson(path("greedy.json"));
    const nlohmann::json& generated = json["generated"];
    ASSERT_EQ(generated.size(), 6u);
    const std::size_t n = prompt + 6;
    EXPECT_EQ(json["tokens"]["target"].size(), n);
    for (const nlohmann::json& layer : json["layers"])
        for (const nlohmann::json& head : layer["heads"]) EXPECT_EQ(head["attention"].size(), n);
    ASSERT_EQ(json["predictions"].size(), n);
    for (std::size_t t = 0; t < generated.size(); ++t) {
        const std::size_t position = prompt + t;
        EXPECT_EQ(generated[t]["position"], position);
        const nlohmann::json& before = json["predictions"][position - 1]["top"][0];
        EXPECT_EQ(generated[t]["id"], before["id"]) << "token " << t;
        EXPECT_EQ(generated[t]["token"], before["token"]) << "token " << t;
        EXPECT_NEAR(generated[t]["probability"].get<double>(), before["probability"].get<double>(), 1e-6);
    }
    // Sampling: a seed decides the tokens.
    for (const char* out : {"sampled1.json", "sampled2.json"}) {
        const CommandRun sampled = exportGenerated(out, {"--generate", "6", "--temperature", "1.5", "--seed", "11"});
        ASSERT_EQ(sampled.status, 0) << sampled.output;
    }
    EXPECT_EQ(readJson(path("sampled1.json"))["generated"], readJson(path("sampled2.json"))["generated"]);
    EXPECT_FALSE(readJson(path("plain.json")).contains("generated"));

    // Refused, nothing written: too many tokens, a masked LM, one layer, options without --generate.
    const CommandRun tooMany = exportGenerated("x.json", {"--generate", "40"});
    EXPECT_EQ(tooMany.status, 2);
    EXPECT_NE(tooMany.output.find("this model runs on up to 20"), std::string::npos) << tooMany.output;
    const CommandRun bert = run({"export", "--weights", pretrained("bert"), "--layer", "all", "--source", kBertSentence,
                                 "--generate", "2", "--format", "json", "--out", path("x.json")});
    EXPECT_EQ(bert.status, 2);
    EXPECT_NE(bert.output.find("masked LM"), std::string::npos) << bert.output;
    const CommandRun oneLayer = run({"export", "--weights", pretrained("gpt2"), "--layer", "0", "--target", "a cat",
                                     "--generate", "2", "--format", "json", "--out", path("x.json")});
    EXPECT_EQ(oneLayer.status, 2);
    EXPECT_NE(oneLayer.output.find("--layer all"), std::string::npos) << oneLayer.output;
    const CommandRun alone = exportGenerated("x.json", {"--temperature", "1"});
    EXPECT_EQ(alone.status, 2);
    EXPECT_NE(alone.output.find("--temperature: goes with --generate N"), std::string::npos) << alone.output;
    for (const std::vector<std::string>& bad : {std::vector<std::string>{"--generate", "0"}, {"--generate", "x"},
                                                {"--generate", "2", "--temperature", "-1"},
                                                {"--generate", "2", "--temperature", "nan"}}) {
        const CommandRun refused = exportGenerated("x.json", bad);
        EXPECT_EQ(refused.status, 2) << bad[0] << " " << bad[1];
    }
    EXPECT_FALSE(std::filesystem::exists(path("x.json")));
}

// The synthetic LLaMA checkpoint with only a LLaMA-3-style tokenizer.json beside it
// (make_llama_tokenizer_json.py): typed text gives the reference's ids, and every layer and the
// predictions match PyTorch.
TEST_F(ExportCli, ALlamaWithOnlyATokenizerJsonReadsTypedTextAsPyTorchDid)
{
    namespace fs = std::filesystem;
    const std::string folder = path("llama-model");
    fs::create_directory(folder);
    for (const char* name : {"llama/config.json", "llama/model.safetensors", "llama_text/tokenizer.json",
                             "llama_text/tokenizer_config.json"})
        fs::copy_file(pretrained(name), folder + "/" + fs::path(name).filename().string());
    const nlohmann::json sentences = readJson(pretrained("llama_text/sentences.json"));
    const CommandRun all = run({"export", "--weights", folder, "--layer", "all", "--target", sentences["target"],
                                "--format", "json", "--out", path("llama.json")});
    ASSERT_EQ(all.status, 0) << all.output;
    const nlohmann::json json = readJson(path("llama.json"));
    // The family row the model runs as keeps its documented spelling; the name is config.json's.
    EXPECT_EQ(json["model"]["family"], "LLaMA-style");
    EXPECT_EQ(json["model"]["name"], "LLaMA");
    EXPECT_EQ(json["tokens"]["target"], sentences["shown"]);
    ASSERT_EQ(json["layers"].size(), 2u);
    for (std::size_t l = 0; l < 2; ++l) {
        const MatrixD expected = reference("llama/attention_" + std::to_string(l) + ".npy");
        const nlohmann::json& heads = json["layers"][l]["heads"];
        const Index n = expected.cols();
        ASSERT_EQ(static_cast<Index>(heads.size()) * n, expected.rows());
        for (std::size_t h = 0; h < heads.size(); ++h)
            EXPECT_LT((asMatrix(heads[h]["attention"]) - expected.middleRows(static_cast<Index>(h) * n, n)).cwiseAbs().maxCoeff(),
                      1e-4)
                << "layer " << l << " head " << h + 1;
    }
    expectPredictionsMatch(json["predictions"], reference("llama/logits.npy"), {0, 1, 2, 3, 4, 5, 6, 7});
}

// The synthetic Marian checkpoint with a tokenizer whose vocab.json gives typed sentences the
// reference's ids (make_marian_text_fixture.py): SentencePiece, teacher forcing and every layer,
// cross-attention included, against PyTorch.
TEST_F(ExportCli, AMarianTranslatesTypedSentencesWithTheReferencesCrossAttention)
{
    namespace fs = std::filesystem;
    const std::string folder = path("marian-model");
    fs::create_directory(folder);
    for (const char* name : {"marian/config.json", "marian/model.safetensors", "marian_text/source.spm",
                             "marian_text/target.spm", "marian_text/vocab.json"})
        fs::copy_file(pretrained(name), folder + "/" + fs::path(name).filename().string());
    const nlohmann::json sentences = readJson(pretrained("marian_text/sentences.json"));
    const auto exportAll = [&](const std::string& out, std::vector<std::string> extra) {
        std::vector<std::string> arguments{
            "export",   "--weights",         folder,     "--layer", "all",   "--source", sentences["source"],
            "--target", sentences["target"], "--format", "json",    "--out", path(out)};
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        return run(arguments);
    };
    const CommandRun all = exportAll("marian.json", {});
    ASSERT_EQ(all.status, 0) << all.output;
    const nlohmann::json json = readJson(path("marian.json"));
    EXPECT_EQ(json["model"]["family"], "Marian");
    EXPECT_EQ(json["model"]["name"], "Marian");
    // The decoder reads its start token (<pad>) and the target's pieces but the final </s>.
    nlohmann::json decoder = {"<pad>"};
    for (const auto& piece : sentences["target_pieces"]) decoder.push_back(piece);
    EXPECT_EQ(json["tokens"]["target"], decoder);
    const std::vector<std::string> kinds{"self", "self", "causal", "cross", "causal", "cross"};
    ASSERT_EQ(json["layers"].size(), kinds.size());
    for (std::size_t l = 0; l < kinds.size(); ++l) {
        const nlohmann::json& layer = json["layers"][l];
        EXPECT_EQ(layer["kind"], kinds[l]) << l;
        const MatrixD expected = reference("marian/attention_" + std::to_string(l) + ".npy");
        const Index n_k = expected.cols();
        for (std::size_t h = 0; h < layer["heads"].size(); ++h) {
            const MatrixD shown = asMatrix(layer["heads"][h]["attention"]);
            ASSERT_EQ(shown.cols(), n_k) << l;
            EXPECT_LT(
                (shown - expected.middleRows(static_cast<Index>(h) * shown.rows(), shown.rows())).cwiseAbs().maxCoeff(),
                1e-4)
                << layer["name"] << " head " << h + 1;
        }
    }
    expectPredictionsMatch(json["predictions"], reference("marian/logits.npy"), {0, 1, 2, 3, 4, 5, 6}, false);
    // Its vocab.json lists 15 of the 48 ids: the others have no piece to name them.
    EXPECT_TRUE(json["predictions"][0]["top"][0]["token"].is_string() ||
                json["predictions"][0]["top"][0]["token"].is_null());
    // Model order 3 (the first cross-attention), head 0 of the reference: named by its layer.
    const CommandRun ablated = exportAll("ablated.json", {"--ablate", "model.decoder.layers.0.encoder_attn.1"});
    ASSERT_EQ(ablated.status, 0) << ablated.output;
    const nlohmann::json off = readJson(path("ablated.json"));
    const MatrixD expected = reference("marian/ablated_attention_5.npy");
    for (std::size_t h = 0; h < 4; ++h) {
        const MatrixD shown = asMatrix(off["layers"][5]["heads"][h]["attention"]);
        EXPECT_LT((shown - expected.middleRows(static_cast<Index>(h) * 7, 7)).cwiseAbs().maxCoeff(), 1e-4) << h;
    }
    expectPredictionsMatch(off["predictions"], reference("marian/ablated_logits.npy"), {0, 1, 2, 3, 4, 5, 6}, false);
}

TEST_F(ExportCli, WholeModelArgumentsAreCheckedAndNothingPartialIsLeft)
{
    const auto exportAll = [&](std::vector<std::string> extra) {
        std::vector<std::string> arguments{"export",      "--weights", pretrained("bert"), "--layer", "all", "--source",
                                           kBertSentence, "--out",     path("x.json")};
        if (std::find(extra.begin(), extra.end(), "--format") == extra.end())
            extra.insert(extra.end(), {"--format", "json"});
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        return run(arguments);
    };
    const CommandRun csv = exportAll({"--format", "csv"});
    EXPECT_EQ(csv.status, 2) << csv.output;
    EXPECT_NE(csv.output.find("--format"), std::string::npos) << csv.output;
    for (const char* ablate : {"1", "7.1", "1.5", "1.0", "x.y", "1."}) {
        const CommandRun bad = exportAll({"--ablate", ablate});
        EXPECT_EQ(bad.status, 2) << ablate << ": " << bad.output;
        EXPECT_NE(bad.output.find("--ablate"), std::string::npos) << bad.output;
    }
    std::string longSentence;
    for (int i = 0; i < 600; ++i) longSentence += "super ";
    const CommandRun tooLong = exportAll({"--source", longSentence});
    EXPECT_EQ(tooLong.status, 2) << tooLong.output;
    EXPECT_NE(tooLong.output.find("--source"), std::string::npos) << tooLong.output;
    EXPECT_FALSE(std::filesystem::exists(path("x.json")));
    std::filesystem::create_directory(path("folder"));
    const CommandRun folder =
        run({"export", "--weights", pretrained("bert"), "--layer", "all", "--format", "json", "--out", path("folder")});
    EXPECT_EQ(folder.status, 1) << folder.output;
    EXPECT_TRUE(std::filesystem::is_empty(path("folder")));
}


// A map's block means and maxima on edges, from the full export.
std::pair<MatrixD, MatrixD> pooledOf(const MatrixD& map, const nlohmann::json& edges)
{
    const auto k = static_cast<Index>(edges.size()) - 1;
    MatrixD mean(k, k), max(k, k);
    for (Index a = 0; a < k; ++a)
        for (Index b = 0; b < k; ++b) {
            const int r0 = edges[static_cast<std::size_t>(a)], r1 = edges[static_cast<std::size_t>(a) + 1];
            const int c0 = edges[static_cast<std::size_t>(b)], c1 = edges[static_cast<std::size_t>(b) + 1];
            mean(a, b) = map.block(r0, c0, r1 - r0, c1 - c0).mean();
            max(a, b) = map.block(r0, c0, r1 - r0, c1 - c0).maxCoeff();
        }
    return {mean, max};
}

void expectPoolOf(const nlohmann::json& pool, const MatrixD& full, double tolerance, const std::string& what)
{
    const auto [mean, max] = pooledOf(full, pool["row_edges"]);
    EXPECT_EQ(pool["col_edges"], pool["row_edges"]) << what;
    EXPECT_LT((asMatrix(pool["mean"]) - mean).cwiseAbs().maxCoeff(), tolerance) << what;
    EXPECT_LT((asMatrix(pool["max"]) - max).cwiseAbs().maxCoeff(), tolerance) << what;
}

// --pool and --rows/--cols for a whole model: each head's attention_pool and value_norms_pool,
// the layer's value_norms_pool and the rollout_pool pool the full export's maps on the same edges;
// a region is the full export's slice, bit for bit while the maps fit --max-cells, and recomputed
// exactly from the stream above it.
TEST_F(ExportCli, AWholeModelPooledOrCutToARegionIsItsFullExportsOwn)
{
    const std::vector<std::string> base{"export", "--weights", pretrained("gpt2"), "--layer", "all", "--target",
                                        "the cat sat on a mat", "--format", "json"};
    const auto exportWith = [&](const std::string& name, std::vector<std::string> extra) {
        std::vector<std::string> arguments = base;
        arguments.insert(arguments.end(), {"--out", path(name)});
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        const CommandRun r = run(arguments);
        EXPECT_EQ(r.status, 0) << r.output;
        return readJson(path(name));
    };
    const nlohmann::json full = exportWith("full.json", {});
    const nlohmann::json pooled = exportWith("pool.json", {"--pool", "4"});
    const nlohmann::json slice = exportWith("slice.json", {"--rows", "2:6", "--cols", "1:5"});
    const nlohmann::json streamed = exportWith("streamed.json", {"--rows", "2:6", "--cols", "1:5", "--max-cells", "10"});
    ASSERT_EQ(pooled["pool"], 4);
    EXPECT_EQ(pooled.count("rollout"), 0u);
    // The streamed layers' outputs equal the held ones to float rounding, and so do the predictions.
    ASSERT_EQ(pooled["predictions"].size(), full["predictions"].size());
    for (std::size_t p = 0; p < full["predictions"].size(); ++p)
        for (std::size_t k = 0; k < 5; ++k) {
            const nlohmann::json &mine = pooled["predictions"][p]["top"][k], &held = full["predictions"][p]["top"][k];
            EXPECT_EQ(mine["id"], held["id"]) << "position " << p;
            EXPECT_NEAR(mine["probability"].get<double>(), held["probability"].get<double>(), 1e-5) << "position " << p;
        }
    for (std::size_t l = 0; l < full["layers"].size(); ++l) {
        const nlohmann::json &whole = full["layers"][l], &pool = pooled["layers"][l];
        for (std::size_t h = 0; h < whole["heads"].size(); ++h) {
            const std::string what = "layer " + std::to_string(l) + " head " + std::to_string(h + 1);
            EXPECT_EQ(pool["heads"][h].count("attention"), 0u);
            EXPECT_EQ(pool["heads"][h].count("value_norms"), 0u);
            expectPoolOf(pool["heads"][h]["attention_pool"], asMatrix(whole["heads"][h]["attention"]), 1e-6, what);
            expectPoolOf(pool["heads"][h]["value_norms_pool"], asMatrix(whole["heads"][h]["value_norms"]), 1e-5, what);
            const MatrixD cut = asMatrix(whole["heads"][h]["attention"]).block(2, 1, 4, 4);
            EXPECT_EQ(asMatrix(slice["layers"][l]["heads"][h]["attention"]), cut) << what;
            EXPECT_LT((asMatrix(streamed["layers"][l]["heads"][h]["attention"]) - cut).cwiseAbs().maxCoeff(), 1e-6) << what;
            const MatrixD norms = asMatrix(whole["heads"][h]["value_norms"]).block(2, 1, 4, 4);
            EXPECT_LT((asMatrix(streamed["layers"][l]["heads"][h]["value_norms"]) - norms).cwiseAbs().maxCoeff(), 1e-5) << what;
        }
        expectPoolOf(pool["value_norms_pool"], asMatrix(whole["value_norms"]), 1e-5, "layer " + std::to_string(l));
        const MatrixD layerNorms = asMatrix(whole["value_norms"]).block(2, 1, 4, 4);
        EXPECT_EQ(asMatrix(slice["layers"][l]["value_norms"]), layerNorms);
        EXPECT_LT((asMatrix(streamed["layers"][l]["value_norms"]) - layerNorms).cwiseAbs().maxCoeff(), 1e-5);
    }
    expectPoolOf(pooled["rollout_pool"], asMatrix(full["rollout"]), 1e-6, "rollout");
    for (const nlohmann::json* region : {&slice, &streamed}) {
        EXPECT_EQ((*region)["rows"], nlohmann::json::array({2, 6}));
        EXPECT_EQ((*region)["cols"], nlohmann::json::array({1, 5}));
        EXPECT_LT((asMatrix((*region)["rollout"]) - asMatrix(full["rollout"]).block(2, 1, 4, 4)).cwiseAbs().maxCoeff(), 1e-6);
    }
    // Without either, above --max-cells: refused, nothing written.
    std::vector<std::string> refused = base;
    refused.insert(refused.end(), {"--out", path("refused.json"), "--max-cells", "10"});
    const CommandRun r = run(refused);
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("--pool N"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(path("refused.json")));
}

}  // namespace
}  // namespace qkv::testing
