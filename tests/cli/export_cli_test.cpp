// Runs `qkv-studio export` as a user would and checks what lands on disk and what it says.

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/config/examples.hpp"
#include "core/io/weights_file.hpp"
#include "core/io/npy.hpp"
#include "core/pipeline/compute.hpp"
#include "cli/cli_support.hpp"
#include "support/matrix_assertions.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

using testing::CommandRun;
using testing::ExportCli;
using testing::readJson;
using testing::run;
namespace fs = std::filesystem;

MatrixF toMatrix(const nlohmann::json& rows)
{
    MatrixF m(static_cast<Index>(rows.size()), rows.empty() ? 0 : static_cast<Index>(rows[0].size()));
    for (Index r = 0; r < m.rows(); ++r)
        for (Index c = 0; c < m.cols(); ++c) m(r, c) = rows[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)].get<float>();
    return m;
}

TEST_F(ExportCli, DefaultJsonFollowsTheSchemaAndEqualsTheCore)
{
    const CommandRun r = run({"export", "--format", "json", "--out", path("a.json")});
    ASSERT_EQ(r.status, 0) << r.output;
    const nlohmann::json doc = readJson(path("a.json"));
    EXPECT_EQ(doc.at("format"), "qkv-studio-export");
    EXPECT_EQ(doc.at("config").at("d_k"), 16);
    EXPECT_EQ(doc.at("config").at("mode"), "cross");

    const auto expected = compute(builtInExample());
    ASSERT_TRUE(expected.ok());
    const Result& e = **expected;
    EXPECT_EQ(doc.at("tokens").at("query").get<std::vector<std::string>>(), e.queryLabels);
    EXPECT_EQ(doc.at("tokens").at("key").get<std::vector<std::string>>(), e.keyLabels);
    ASSERT_EQ(doc.at("heads").size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
        const nlohmann::json& head = doc.at("heads")[i];
        // Shortest round-trip text: the same float bits come back.
        EXPECT_MATRIX_NEAR(toMatrix(head.at("attention")), e.attention.heads[i].attention, 0.0);
        EXPECT_MATRIX_NEAR(toMatrix(head.at("scores")), e.attention.heads[i].scores, 0.0);
        EXPECT_EQ(head.at("factored").at("rank"), 16);
        EXPECT_EQ(head.at("factored").at("singular_values").size(), 16u);
        EXPECT_LT(head.at("factored").at("equivalence_error").get<double>(), 1e-5);
    }
    EXPECT_MATRIX_NEAR(toMatrix(doc.at("output")), e.attention.output, 0.0);
    // Standard layer without biases: 4 d^2.
    EXPECT_EQ(doc.at("cost").at("layer_parameters"), 4 * 64 * 64);
    EXPECT_EQ(doc.at("cost").at("score_path_parameters_per_head").at("factored"), 2 * 64 * 16);
    EXPECT_EQ(doc.at("cost").at("score_path_parameters_per_head").at("full"), 64 * 64);
    EXPECT_FALSE(doc.at("cost").at("table").empty());
}

// --head-dim gives the heads their own width: h need not divide d_model, W^Q is d_model x h d_k,
// the costs use the general formulas; the file says head_dim and d_k. "auto" is d_model / h.
TEST_F(ExportCli, HeadDimGivesTheHeadsTheirOwnWidth)
{
    const CommandRun r = run({"export", "--d-model", "12", "--heads", "5", "--head-dim", "8", "--format", "json",
                              "--out", path("w.json")});
    ASSERT_EQ(r.status, 0) << r.output;
    const nlohmann::json doc = readJson(path("w.json"));
    EXPECT_EQ(doc.at("config").at("d_k"), 8);
    EXPECT_EQ(doc.at("config").at("head_dim"), 8);
    ASSERT_EQ(doc.at("heads").size(), 5u);
    // W_i is 12 x 12 of rank 8 (at most d_k).
    EXPECT_EQ(doc.at("heads")[0].at("factored").at("rank"), 8);
    EXPECT_EQ(doc.at("cost").at("layer_parameters"), 12 * (2 * 5 + 2 * 5) * 8);
    EXPECT_EQ(doc.at("cost").at("score_path_parameters_per_head").at("factored"), 2 * 12 * 8);

    Config config = builtInExample();
    config.d_model = 12;
    config.headCount = 5;
    config.headDim = 8;
    const auto expected = compute(config);
    ASSERT_TRUE(expected.ok()) << expected.error();
    EXPECT_MATRIX_NEAR(toMatrix(doc.at("output")), (*expected)->attention.output, 0.0);

    const CommandRun automatic = run({"export", "--head-dim", "auto", "--format", "json", "--out", path("a.json")});
    ASSERT_EQ(automatic.status, 0) << automatic.output;
    EXPECT_EQ(readJson(path("a.json")).at("config").at("d_k"), 16);
    EXPECT_FALSE(readJson(path("a.json")).at("config").contains("head_dim"));

    const CommandRun zero = run({"export", "--head-dim", "0", "--format", "json", "--out", path("z.json")});
    EXPECT_EQ(zero.status, 2);
    EXPECT_NE(zero.output.find("--head-dim: d_k must be at least 1"), std::string::npos) << zero.output;
    const CommandRun huge = run({"export", "--head-dim", "5000", "--format", "json", "--out", path("h.json")});
    EXPECT_NE(huge.status, 0);
    EXPECT_NE(huge.output.find("--head-dim"), std::string::npos) << huge.output;
    EXPECT_FALSE(fs::exists(path("h.json")));
}

// --sliding-window W: in causal mode each query keeps its W latest keys; elsewhere it is refused.
TEST_F(ExportCli, ASlidingWindowMasksOlderKeysInCausalMode)
{
    const CommandRun r = run({"export", "--mode", "causal", "--sliding-window", "2", "--format", "json", "--out",
                              path("w.json")});
    ASSERT_EQ(r.status, 0) << r.output;
    const nlohmann::json doc = readJson(path("w.json"));
    EXPECT_EQ(doc.at("config").at("sliding_window"), 2);
    const MatrixF a = toMatrix(doc.at("heads")[0].at("attention"));
    ASSERT_GE(a.rows(), 4);
    EXPECT_EQ(a.row(3).head(2).cwiseAbs().maxCoeff(), 0.0f);
    EXPECT_NEAR(a.row(3).segment(2, 2).sum(), 1.0, 1e-6);

    const CommandRun self = run({"export", "--sliding-window", "2", "--format", "json", "--out", path("s.json")});
    EXPECT_NE(self.status, 0);
    EXPECT_NE(self.output.find("needs decoder (causal) self-attention"), std::string::npos) << self.output;
    EXPECT_FALSE(fs::exists(path("s.json")));
    const CommandRun negative = run({"export", "--mode", "causal", "--sliding-window", "-1", "--format", "json",
                                     "--out", path("n.json")});
    EXPECT_EQ(negative.status, 2);
    EXPECT_NE(negative.output.find("--sliding-window"), std::string::npos) << negative.output;
}

// A Qwen3-shaped layer (head_dim 8 at d_model 16, h 4) exports with its own d_k.
TEST_F(ExportCli, ACheckpointLayerWithWideHeadsExportsItsWidth)
{
    const std::string weights = std::string(testDataDir()) + "/checkpoint/qwen3_wide/model.safetensors";
    const CommandRun r = run({"export", "--weights", weights, "--layer", "0", "--mode", "causal", "--target",
                              "a b c", "--format", "json", "--out", path("q.json")});
    ASSERT_EQ(r.status, 0) << r.output;
    const nlohmann::json doc = readJson(path("q.json"));
    EXPECT_EQ(doc.at("config").at("d_model"), 16);
    EXPECT_EQ(doc.at("config").at("heads"), 4);
    EXPECT_EQ(doc.at("config").at("kv_heads"), 2);
    EXPECT_EQ(doc.at("config").at("d_k"), 8);
}

TEST_F(ExportCli, CausalModeJsonHasZerosAboveTheDiagonal)
{
    const CommandRun r = run({"export", "--mode", "causal", "--target", "one two three four", "--d-model", "32",
                       "--heads", "8", "--format", "json", "--out", path("c.json")});
    ASSERT_EQ(r.status, 0) << r.output;
    const nlohmann::json doc = readJson(path("c.json"));
    ASSERT_EQ(doc.at("heads").size(), 8u);
    const MatrixF a = toMatrix(doc.at("heads")[3].at("attention"));
    ASSERT_EQ(a.rows(), 4);
    for (Index q = 0; q < 4; ++q)
        for (Index k = q + 1; k < 4; ++k) EXPECT_EQ(a(q, k), 0.0f);
}

TEST_F(ExportCli, CsvHasOneRowPerHeadQueryAndKeyAndQuotesTokens)
{
    const CommandRun r = run({"export", "--mode", "self", "--source", "a, \"b\" c", "--heads", "2", "--format", "csv",
                       "--out", path("a.csv")});
    ASSERT_EQ(r.status, 0) << r.output;
    std::ifstream file(path("a.csv"));
    std::string header;
    std::getline(file, header);
    EXPECT_EQ(header, "head,query_index,query_token,key_index,key_token,attention,scaled_score,raw_score,masked");
    int rows = 0;
    std::string line, commaRow;
    while (std::getline(file, line)) {
        ++rows;
        if (line.rfind("1,0,a,1,", 0) == 0) commaRow = line;  // head 1 (heads count from 1)
    }
    EXPECT_EQ(rows, 2 * 6 * 6);  // tokens: a , " b " c
    EXPECT_EQ(commaRow.substr(0, 12), "1,0,a,1,\",\",");
}

TEST_F(ExportCli, NpyFolderHoldsEveryArrayWithTheCoreBits)
{
    const CommandRun r = run({"export", "--format", "npy", "--out", path("arrays")});
    ASSERT_EQ(r.status, 0) << r.output;
    for (const char* name : {"attention.npy", "scores.npy", "output.npy", "query.npy", "key.npy", "value.npy",
                             "W_Q.npy", "meta.json"})
        EXPECT_TRUE(fs::exists(path("arrays/") + name)) << name;
    const auto expected = compute(builtInExample());
    const Expected<MatrixF> output = readNpyMatrix(path("arrays/output.npy"));
    ASSERT_TRUE(output.ok()) << output.error();
    EXPECT_MATRIX_NEAR(*output, (*expected)->attention.output, 0.0);

    // attention.npy is (h, n_q, n_k) float32: the header says so and the data are the heads in order.
    std::ifstream file(path("arrays/attention.npy"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(file)), {});
    ASSERT_GT(bytes.size(), 10u);
    const std::size_t headerLength = 10 + static_cast<unsigned char>(bytes[8]) + 256u * static_cast<unsigned char>(bytes[9]);
    EXPECT_NE(bytes.substr(0, headerLength).find("'shape': (4, 12, 11)"), std::string::npos) << bytes.substr(0, headerLength);
    ASSERT_EQ(bytes.size(), headerLength + 4 * 12 * 11 * sizeof(float));
    const MatrixF& head2 = (*expected)->attention.heads[2].attention;
    EXPECT_EQ(std::memcmp(bytes.data() + headerLength + 2 * 12 * 11 * sizeof(float), head2.data(), 12 * 11 * sizeof(float)), 0);
    EXPECT_EQ(readJson(path("arrays/meta.json")).at("heads")[0].count("attention"), 0u);  // matrices live in .npy
}

TEST_F(ExportCli, PyTorchLayoutWeightsGiveTheSameExportAsOurLayout)
{
    AttentionWeights weights = initialiseWeights(16, 99, WeightInit::Normal, true);
    weights.queryBias->setRandom();
    weights.outputBias->setRandom();
    ASSERT_TRUE(saveAttentionWeights(path("ours.safetensors"), weights).ok());
    ASSERT_TRUE(savePyTorchMultiheadAttention(path("torch.safetensors"), weights, "encoder.layers.0.self_attn.").ok());
    const CommandRun ours = run({"export", "--weights", path("ours.safetensors"), "--heads", "4", "--format", "json", "--out", path("ours.json")});
    const CommandRun torch = run({"export", "--weights", path("torch.safetensors"), "--heads", "4", "--format", "json", "--out", path("torch.json")});
    ASSERT_EQ(ours.status, 0) << ours.output;
    ASSERT_EQ(torch.status, 0) << torch.output;
    const nlohmann::json a = readJson(path("ours.json")), b = readJson(path("torch.json"));
    EXPECT_EQ(a.at("config").at("d_model"), 16);  // the file decides d_model
    EXPECT_EQ(a.at("config").at("bias"), true);
    EXPECT_EQ(a.at("output"), b.at("output"));
    EXPECT_EQ(a.at("heads"), b.at("heads"));
}

TEST_F(ExportCli, EmbeddingFilesReplaceGeneratedInputs)
{
    MatrixF source = MatrixF::Random(5, 8);
    ASSERT_TRUE(writeNpy(path("source.npy"), source).ok());
    const CommandRun r = run({"export", "--d-model", "8", "--heads", "2", "--source", "only two", "--source-embeddings",
                       path("source.npy"), "--format", "json", "--out", path("e.json")});
    ASSERT_EQ(r.status, 0) << r.output;
    const nlohmann::json doc = readJson(path("e.json"));
    EXPECT_EQ(doc.at("tokens").at("key").get<std::vector<std::string>>(),
              (std::vector<std::string>{"t0", "t1", "t2", "t3", "t4"}));
    EXPECT_EQ(doc.at("config").at("source_embeddings"), path("source.npy"));
}

TEST_F(ExportCli, BadArgumentsExitTwoWithOneLineNamingTheArgument)
{
    const struct {
        std::vector<std::string> arguments;
        std::string expected;
    } cases[] = {
        {{"export", "--heads", "5", "--format", "json", "--out", "x"}, "--heads: h = 5 does not divide d_model = 64"},
        {{"export", "--heads", "abc", "--format", "json", "--out", "x"}, "--heads: 'abc' is not a whole number"},
        {{"export", "--mode", "decoder", "--format", "json", "--out", "x"}, "--mode: 'decoder' is not one of"},
        {{"export", "--format", "xml", "--out", "x"}, "--format: 'xml' is not one of json, csv, npy"},
        {{"export", "--format", "json"}, "--out: an output path is required"},
        {{"export", "--frobnicate"}, "unknown argument '--frobnicate'"},
        {{"export", "--mode", "cross", "--target", "  ", "--format", "json", "--out", "x"}, "--target: The target sentence is empty"},
        {{"export", "--d-model", "0", "--format", "json", "--out", "x"}, "--d-model: d_model must be between 1"},
        {{"export", "--seed"}, "--seed: needs a value"},
    };
    for (const auto& c : cases) {
        const CommandRun r = run(c.arguments);
        EXPECT_EQ(r.status, 2) << r.output;
        EXPECT_NE(r.output.find(c.expected), std::string::npos) << r.output;
        EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    }
    EXPECT_FALSE(fs::exists("x"));
}

TEST_F(ExportCli, FailuresExitOneAndLeaveNothingPartialOrOverwritten)
{
    // Unwritable location.
    CommandRun r = run({"export", "--format", "json", "--out", path("missing/folder/a.json")});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find("cannot write"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(path("missing")));

    // A corrupt weights file leaves a previous export untouched.
    { std::ofstream(path("keep.json")) << "previous"; }
    { std::ofstream(path("bad.safetensors"), std::ios::binary) << "\x10\x00\x00\x00\x00\x00\x00\x00{not json"; }
    r = run({"export", "--weights", path("bad.safetensors"), "--format", "json", "--out", path("keep.json")});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find("bad.safetensors"), std::string::npos) << r.output;
    std::ifstream kept(path("keep.json"));
    std::string text((std::istreambuf_iterator<char>(kept)), {});
    EXPECT_EQ(text, "previous");

    // A folder where a file should go.
    fs::create_directories(path("a_folder"));
    r = run({"export", "--format", "csv", "--out", path("a_folder")});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find("it is a folder"), std::string::npos) << r.output;

    // No temporary files are left behind.
    for (const auto& entry : fs::directory_iterator(directory_))
        EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << entry.path();
}

TEST_F(ExportCli, WithoutADisplayTheAppSaysSoInOneLine)
{
    const CommandRun r = run({}, "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find("no display"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("qkv-studio export"), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
}

TEST_F(ExportCli, ASessionFileIsForTheAppAndATypoIsAnUnknownCommand)
{
    // `qkv-studio FILE.qkv.json` is the desktop app on a session: without a display it says so.
    const CommandRun session = run({path("work.qkv.json")}, "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM");
    EXPECT_EQ(session.status, 1);
    EXPECT_NE(session.output.find("no display"), std::string::npos) << session.output;
    // A file manager's selection of several sessions (Exec=qkv-studio %F): the others are named.
    const CommandRun several = run({path("a.qkv.json"), path("b.qkv.json"), path("c.qkv.json")},
                                   "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM");
    EXPECT_NE(several.output.find("one session at a time: opening " + path("a.qkv.json") + "; not opened: " +
                                  path("b.qkv.json") + ", " + path("c.qkv.json")),
              std::string::npos)
        << several.output;
    const CommandRun typo = run({"exprot"});
    EXPECT_EQ(typo.status, 2);
    EXPECT_NE(typo.output.find("unknown command 'exprot'"), std::string::npos) << typo.output;
}

TEST_F(ExportCli, HelpAndVersion)
{
    // The version, then the data folder: the build tree's copy, beside the executable.
    const CommandRun version = run({"--version"}, "env -u QKV_STUDIO_DATA_DIR");
    EXPECT_EQ(version.status, 0);
    EXPECT_EQ(version.output, std::string("qkv-studio " QKV_VERSION "\nexamples and lexicon: ") + qkv::buildDataDir() + "\n");
    const CommandRun elsewhere = run({"--version"}, "env QKV_STUDIO_DATA_DIR=/nonexistent/qkv-data");
    EXPECT_NE(elsewhere.output.find("examples and lexicon: /nonexistent/qkv-data (missing)"), std::string::npos)
        << elsewhere.output;
    const CommandRun main = run({"--help"});
    EXPECT_EQ(main.status, 0);
    EXPECT_NE(main.output.find("Usage: qkv-studio [FILE.qkv.json]"), std::string::npos) << main.output;
    EXPECT_NE(main.output.find("QKV_STUDIO_DATA_DIR"), std::string::npos);
    EXPECT_NE(main.output.find("Usage: qkv-studio export"), std::string::npos);
    const CommandRun help = run({"export", "--help"});
    EXPECT_EQ(help.status, 0);
    EXPECT_NE(help.output.find("--format json|csv|npy"), std::string::npos);
}

}  // namespace
}  // namespace qkv
