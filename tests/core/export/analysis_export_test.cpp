// The JSON export carries, for every head, `statistics`, `qk_projection` and `ablation`, equal
// to what the core functions return (numbers round-trip exactly; null where undefined).

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/analysis/head_ablation.hpp"
#include "core/analysis/head_statistics.hpp"
#include "core/analysis/qk_projection.hpp"
#include "core/config/examples.hpp"
#include "core/export/result_export.hpp"
#include "core/pipeline/compute.hpp"
#include "support/matrix_assertions.hpp"
#include "tests/core/analysis/analysis_test_support.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

class AnalysisExport : public ::testing::Test {
protected:
    void SetUp() override
    {
        directory_ = fs::temp_directory_path() /
                     ("qkv_analysis_export_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                      "_" + std::to_string(::getpid()));  // two checkouts' suites may run at once
        fs::remove_all(directory_);
        fs::create_directories(directory_);
    }
    void TearDown() override { fs::remove_all(directory_); }

    nlohmann::json exported(const Result& result, ExportFormat format)
    {
        const std::string path = (directory_ / "out").string();
        const Status status = exportResult(result, format, path);
        EXPECT_TRUE(status.ok()) << status.error();
        std::ifstream file(format == ExportFormat::Npy ? (directory_ / "out" / "meta.json").string() : path);
        return nlohmann::json::parse(file);
    }

    fs::path directory_;
};

// Exact equality: the export writes the shortest text that reads back to the same double.
void expectNumbers(const nlohmann::json& list, const VectorD& values, const char* what)
{
    ASSERT_EQ(list.size(), static_cast<std::size_t>(values.size())) << what;
    for (Index i = 0; i < values.size(); ++i) {
        const nlohmann::json& item = list[static_cast<std::size_t>(i)];
        if (std::isnan(values(i))) EXPECT_TRUE(item.is_null()) << what << " [" << i << "]";
        else EXPECT_EQ(item.get<double>(), values(i)) << what << " [" << i << "]";
    }
}

void expectNumber(const nlohmann::json& item, double value, const char* what)
{
    if (std::isnan(value)) EXPECT_TRUE(item.is_null()) << what;
    else EXPECT_EQ(item.get<double>(), value) << what;
}

void expectHeadsMatchCore(const nlohmann::json& document, const Result& r)
{
    const nlohmann::json& heads = document.at("heads");
    ASSERT_EQ(static_cast<Index>(heads.size()), r.attention.headCount());
    const auto ablation = ablationEffects(r);
    ASSERT_TRUE(ablation.ok());
    for (Index head = 0; head < r.attention.headCount(); ++head) {
        SCOPED_TRACE("head " + std::to_string(head + 1));
        const nlohmann::json& h = heads[static_cast<std::size_t>(head)];
        EXPECT_EQ(h.at("head").get<Index>(), head + 1);  // heads are numbered from 1
        EXPECT_TRUE(h.contains("factored"));

        const auto stats = headStatistics(r, head);
        ASSERT_TRUE(stats.ok());
        const nlohmann::json& s = h.at("statistics");
        EXPECT_EQ(s.at("visible_keys").get<std::vector<Index>>(), stats->visibleKeys);
        expectNumbers(s.at("entropy"), stats->entropy, "entropy");
        expectNumbers(s.at("normalized_entropy"), stats->normalizedEntropy, "normalized_entropy");
        expectNumbers(s.at("mean_distance"), stats->meanDistance, "mean_distance");
        expectNumbers(s.at("max_weight"), stats->maxWeight, "max_weight");
        if (stats->hasSelfWeight()) expectNumbers(s.at("self_weight"), stats->selfWeight, "self_weight");
        else EXPECT_TRUE(s.at("self_weight").is_null());
        const nlohmann::json& mean = s.at("mean");
        expectNumber(mean.at("entropy"), stats->summary.entropy, "mean.entropy");
        expectNumber(mean.at("normalized_entropy"), stats->summary.normalizedEntropy, "mean.normalized_entropy");
        expectNumber(mean.at("mean_distance"), stats->summary.meanDistance, "mean.mean_distance");
        expectNumber(mean.at("max_weight"), stats->summary.maxWeight, "mean.max_weight");
        expectNumber(mean.at("self_weight"), stats->summary.selfWeight, "mean.self_weight");
        EXPECT_EQ(mean.at("rows").get<Index>(), stats->summary.rows);

        const auto projection = qkProjection(r, head);
        ASSERT_TRUE(projection.ok());
        const nlohmann::json& p = h.at("qk_projection");
        std::set<std::string> keys;
        for (const auto& item : p.items()) keys.insert(item.key());
        EXPECT_EQ(keys, (std::set<std::string>{"queries", "keys", "explained_variance_ratio"}));  // the contract
        EXPECT_MATRIX_NEAR(testing::jsonMatrix(p.at("queries")), projection->queries, 0.0);
        EXPECT_MATRIX_NEAR(testing::jsonMatrix(p.at("keys")), projection->keys, 0.0);
        EXPECT_EQ(p.at("explained_variance_ratio").get<std::vector<double>>(),
                  (std::vector<double>{projection->explainedVarianceRatio[0], projection->explainedVarianceRatio[1]}));

        const nlohmann::json& a = h.at("ablation");
        EXPECT_EQ(a.at("ablated").get<bool>(), r.config.isAblated(head));
        expectNumbers(a.at("relative_output_change"), ablation->relativeChange.col(head), "relative_output_change");
        expectNumbers(a.at("output_change_norm"), ablation->changeNorm.col(head), "output_change_norm");
        expectNumber(a.at("mean_relative_output_change"), ablation->meanRelativeChange(head), "mean_relative_output_change");
    }
}

TEST_F(AnalysisExport, JsonHasEveryHeadsAnalysesEqualToTheCore)
{
    for (const AttentionMode mode : {AttentionMode::DecoderCausal, AttentionMode::Cross, AttentionMode::EncoderSelf}) {
        SCOPED_TRACE(std::string(modeName(mode)));
        Config config = builtInExample();
        config.mode = mode;
        config.ablatedHeads = {1};
        config.withBias = mode == AttentionMode::Cross;
        const auto r = compute(config);
        ASSERT_TRUE(r.ok()) << r.error();
        expectHeadsMatchCore(exported(**r, ExportFormat::Json), **r);
    }
}

TEST_F(AnalysisExport, NpyMetadataCarriesTheAnalysesToo)
{
    const auto r = compute(builtInExample());
    ASSERT_TRUE(r.ok());
    const nlohmann::json meta = exported(**r, ExportFormat::Npy);
    EXPECT_FALSE(meta.at("heads")[0].contains("attention"));
    expectHeadsMatchCore(meta, **r);
}

}  // namespace
}  // namespace qkv
