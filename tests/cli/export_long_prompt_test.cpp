// The export contract for long prompts (docs/formats.md, "Long prompts"): --pool N writes each
// head's attention_pool and no full map, --rows A:B / --cols C:D exactly that region (a slice of
// the full export, bit for bit, when the maps fit; recomputed exactly when they do not), and a
// layer above --max-cells is refused naming both, with nothing written.

#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/cli_support.hpp"
#include "core/common/limits.hpp"

namespace qkv {
namespace {

using testing::CommandRun;
using testing::ExportCli;
using testing::readJson;
using testing::run;

std::string letters(int count)
{
    std::string text;
    for (int i = 0; i < count; ++i) text += std::string(1, static_cast<char>('a' + (i * 7) % 26)) + " ";
    return text;
}

// A causal layer of `tokens` words, small d_model, with `extra` options.
std::vector<std::string> causal(int tokens, const std::string& out, std::vector<std::string> extra = {})
{
    std::vector<std::string> arguments{"export", "--mode", "causal", "--target", letters(tokens), "--d-model", "16",
                                       "--heads", "2", "--format", "json", "--out", out};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    return arguments;
}

double maxDifference(const nlohmann::json& a, const nlohmann::json& b)
{
    double worst = 0;
    for (std::size_t r = 0; r < a.size(); ++r)
        for (std::size_t c = 0; c < a[r].size(); ++c)
            worst = std::max(worst, std::abs(a[r][c].get<double>() - b[r][c].get<double>()));
    return worst;
}

TEST_F(ExportCli, ALayerAboveMaxCellsIsRefusedNamingPoolAndRegions)
{
    const CommandRun r = run(causal(11, path("a.json"), {"--max-cells", "120"}));
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("11 x 11 = 121 cells per head, above --max-cells 120"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("--pool N"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("--rows A:B and --cols C:D"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(path("a.json")));
    EXPECT_EQ(run(causal(11, path("a.json"), {"--max-cells", "121"})).status, 0);
}

TEST_F(ExportCli, ARegionIsTheFullExportsSliceBitForBitAndStreamedItIsExact)
{
    ASSERT_EQ(run(causal(40, path("full.json"))).status, 0);
    const CommandRun sliced = run(causal(40, path("slice.json"), {"--rows", "5:17", "--cols", "3:9"}));
    ASSERT_EQ(sliced.status, 0) << sliced.output;
    // Above --max-cells the same region is recomputed from Q_i and K_j without a full map.
    const CommandRun streamed =
        run(causal(40, path("streamed.json"), {"--rows", "5:17", "--cols", "3:9", "--max-cells", "100"}));
    ASSERT_EQ(streamed.status, 0) << streamed.output;
    const nlohmann::json full = readJson(path("full.json")), slice = readJson(path("slice.json")),
                         recomputed = readJson(path("streamed.json"));
    for (const nlohmann::json* document : {&slice, &recomputed}) {
        EXPECT_EQ((*document)["rows"], nlohmann::json::array({5, 17}));
        EXPECT_EQ((*document)["cols"], nlohmann::json::array({3, 9}));
        EXPECT_EQ((*document)["output"].size(), 12u) << "the region's query rows of the output";
    }
    for (std::size_t head = 0; head < 2; ++head) {
        const nlohmann::json& whole = full["heads"][head];
        nlohmann::json expected = nlohmann::json::array(), expectedScores = nlohmann::json::array();
        for (int q = 5; q < 17; ++q) {
            nlohmann::json row = nlohmann::json::array(), scores = nlohmann::json::array();
            for (int k = 3; k < 9; ++k) {
                row.push_back(whole["attention"][q][k]);
                scores.push_back(whole["scores"][q][k]);
            }
            expected.push_back(row);
            expectedScores.push_back(scores);
        }
        EXPECT_EQ(slice["heads"][head]["attention"], expected) << "bit for bit";
        EXPECT_EQ(slice["heads"][head]["scores"], expectedScores);
        EXPECT_EQ(slice["heads"][head]["statistics"], whole["statistics"]);
        EXPECT_LT(maxDifference(recomputed["heads"][head]["attention"], expected), 1e-6);
        EXPECT_LT(maxDifference(recomputed["heads"][head]["scores"], expectedScores), 1e-5);
        const nlohmann::json& exact = whole["statistics"]["mean"];
        const nlohmann::json& stream = recomputed["heads"][head]["statistics"]["mean"];
        for (const char* field : {"entropy", "normalized_entropy", "mean_distance", "max_weight", "self_weight"})
            EXPECT_NEAR(stream[field].get<double>(), exact[field].get<double>(), 1e-5) << field;
    }
}

TEST_F(ExportCli, PoolWritesBlockMeansAndMaximaOnEdgesAndNoFullMap)
{
    ASSERT_EQ(run(causal(23, path("full.json"))).status, 0);
    const CommandRun pooled = run(causal(23, path("pool.json"), {"--pool", "4"}));
    ASSERT_EQ(pooled.status, 0) << pooled.output;
    const nlohmann::json full = readJson(path("full.json")), document = readJson(path("pool.json"));
    EXPECT_EQ(document["pool"], 4);
    EXPECT_EQ(document.count("output"), 0u);
    const std::vector<int> edges{0, 5, 11, 17, 23};  // floor(b 23 / 4)
    for (std::size_t head = 0; head < 2; ++head) {
        const nlohmann::json& entry = document["heads"][head];
        EXPECT_EQ(entry.count("attention"), 0u);
        EXPECT_EQ(entry.count("scores"), 0u);
        const nlohmann::json& pool = entry["attention_pool"];
        EXPECT_EQ(pool["row_edges"], nlohmann::json(edges));
        EXPECT_EQ(pool["col_edges"], nlohmann::json(edges));
        const nlohmann::json& map = full["heads"][head]["attention"];
        for (std::size_t b = 0; b < 4; ++b)
            for (std::size_t c = 0; c < 4; ++c) {
                double sum = 0, largest = 0;
                for (int q = edges[b]; q < edges[b + 1]; ++q)
                    for (int k = edges[c]; k < edges[c + 1]; ++k) {
                        sum += map[q][k].get<double>();
                        largest = std::max(largest, map[q][k].get<double>());
                    }
                const double cells = (edges[b + 1] - edges[b]) * (edges[c + 1] - edges[c]);
                EXPECT_NEAR(pool["mean"][b][c].get<double>(), sum / cells, 1e-7) << b << "," << c;
                EXPECT_NEAR(pool["max"][b][c].get<double>(), largest, 1e-6) << b << "," << c;
            }
    }
}

TEST_F(ExportCli, APromptPastTheFullMapLimitIsExportedPooled)
{
    // 5,000 tokens: past the 4,096 a held map allows, within the 32,768 a streamed layer does.
    const CommandRun full = run(causal(5000, path("full.json"), {"--max-cells", "100000000"}));
    EXPECT_EQ(full.status, 2) << full.output;
    EXPECT_NE(full.output.find("5000 tokens; the limit is 4096 when every head's full map is held"), std::string::npos)
        << full.output;
    const CommandRun pooled = run(causal(5000, path("pool.json"), {"--pool", "50", "--rows", "4990:5000"}));
    ASSERT_EQ(pooled.status, 0) << pooled.output;
    const nlohmann::json document = readJson(path("pool.json"));
    EXPECT_EQ(document["tokens"]["query"].size(), 5000u);
    EXPECT_EQ(document["cols"], nlohmann::json::array({0, 5000})) << "--rows alone takes every column";
    const nlohmann::json& head = document["heads"][0];
    EXPECT_EQ(head["attention_pool"]["mean"].size(), 50u);
    EXPECT_EQ(head["attention"].size(), 10u);
    EXPECT_EQ(head["attention"][9].size(), 5000u);
    EXPECT_EQ(head["statistics"]["entropy"].size(), 5000u) << "statistics over every row";
    double rowSum = 0;
    for (const nlohmann::json& weight : head["attention"][9]) rowSum += weight.get<double>();
    EXPECT_NEAR(rowSum, 1.0, 1e-5);
}

TEST_F(ExportCli, ALongPromptIsReadFromAFileAndAFifoIsRefused)
{
    // 32,768 letters and spaces: 64 KiB, as one argument still possible; the file is what a
    // 100,000-character article needs (an argument holds at most 128 KiB).
    const std::string text = letters(limits::maxTokens);
    {
        std::ofstream(path("prompt.txt")) << text;
    }
    const CommandRun pooled = run({"export", "--mode", "causal", "--target-file", path("prompt.txt"), "--d-model", "8",
                                   "--heads", "1", "--pool", "8", "--format", "json", "--out", path("pool.json")});
    ASSERT_EQ(pooled.status, 0) << pooled.output;
    const nlohmann::json document = readJson(path("pool.json"));
    EXPECT_EQ(document["tokens"]["query"].size(), static_cast<std::size_t>(limits::maxTokens));
    EXPECT_EQ(document["heads"][0]["attention_pool"]["row_edges"].back(), limits::maxTokens);
    // As a session it is kept whole: the app opens it and says at the field what it can draw.
    const CommandRun saved = run({"export", "--mode", "causal", "--target-file", path("prompt.txt"), "--format",
                                  "session", "--out", path("long.qkv.json")});
    EXPECT_EQ(saved.status, 0) << saved.output;
    // One more token is refused, naming the limit.
    {
        std::ofstream(path("longer.txt")) << text << "z";
    }
    const CommandRun longer = run({"export", "--mode", "causal", "--target-file", path("longer.txt"), "--pool", "8",
                                   "--format", "json", "--out", path("longer.json")});
    EXPECT_EQ(longer.status, 2) << longer.output;
    EXPECT_NE(longer.output.find("32769 tokens; the limit is 32768"), std::string::npos) << longer.output;
    ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
    const CommandRun fifo = run({"export", "--target-file", path("fifo"), "--format", "json", "--out", path("f.json")},
                                "timeout 20");
    EXPECT_EQ(fifo.status, 1) << fifo.output;
    EXPECT_NE(fifo.output.find("--target-file: " + path("fifo") + ": is a FIFO (named pipe), not a regular file"),
              std::string::npos)
        << fifo.output;
}

TEST_F(ExportCli, BadPoolsAndRegionsAreRefusedNamingTheOption)
{
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"--rows", "5:2"}, "--rows: '5:2' is empty or negative"},
        {{"--rows", "3"}, "--rows: '3' is not A:B"},
        {{"--cols", "2:x"}, "--cols: '2:x' is not A:B"},
        {{"--cols", "99999999999:3"}, "--cols: '99999999999:3' is too large"},
        {{"--cols", "0:100"}, "--cols: 0:100 is not a non-empty range of the 11 key columns"},
        {{"--pool", "0"}, "--pool: the number of blocks N must be at least 1"},
        {{"--max-cells", "-3"}, "--max-cells: must be at least 1"},
    };
    for (const auto& [extra, message] : cases) {
        const CommandRun r = run(causal(11, path("bad.json"), extra));
        EXPECT_EQ(r.status, 2) << r.output;
        EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
        EXPECT_FALSE(std::filesystem::exists(path("bad.json")));
    }
    std::vector<std::string> csv{"export", "--mode", "causal", "--target", letters(11), "--format",
                                 "csv",    "--out",  path("bad.csv"), "--pool", "3"};
    const CommandRun r = run(csv);
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("--pool and --rows/--cols write JSON"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace qkv
