// The memory estimate counts what is really allocated: its held part equals the bytes of every
// matrix a computed Result (and the caller's inputs) hold, for every layer variant; the analysis
// terms follow their formulas' growth; and a configuration over the limit is refused naming
// the field. (That the measured peak is within 10% of the estimate is a measurement:
// docs/benchmarks.md.)

#include <set>

#include <gtest/gtest.h>

#include "core/common/limits.hpp"
#include "core/config/examples.hpp"
#include "core/config/memory_estimate.hpp"
#include "core/config/validation.hpp"
#include "core/pipeline/compute.hpp"

namespace qkv {
namespace {

std::size_t bytesOf(const MatrixF& m) { return static_cast<std::size_t>(m.size()) * sizeof(float); }

std::size_t bytesOf(const AttentionWeights& w)
{
    std::size_t bytes = bytesOf(w.queryProjection) + bytesOf(w.keyProjection) + bytesOf(w.valueProjection) +
                        bytesOf(w.outputProjection);
    for (const auto* bias : {&w.queryBias, &w.keyBias, &w.valueBias, &w.outputBias})
        if (*bias) bytes += static_cast<std::size_t>((*bias)->size()) * sizeof(float);
    return bytes;
}

// Every matrix the Result and the caller's inputs hold, each distinct object once.
std::size_t heldBytes(const Result& r, const UserInputs& inputs)
{
    const AttentionResult& a = r.attention;
    std::size_t bytes = bytesOf(r.queryInput) + bytesOf(r.keyValueInput) + bytesOf(a.query) + bytesOf(a.key) +
                        bytesOf(a.value) + bytesOf(a.queryBeforeRotation) + bytesOf(a.keyBeforeRotation) +
                        bytesOf(a.headOutputs) + bytesOf(a.output);
    for (const HeadAttention& head : a.heads) bytes += bytesOf(head.scores) + bytesOf(head.attention);
    std::set<const AttentionWeights*> weights{inputs.weights.get(), r.unscaledWeights.get(), r.weights.get()};
    for (const AttentionWeights* w : weights)
        if (w) bytes += bytesOf(*w);
    for (const auto* user : {&inputs.sourceEmbeddings, &inputs.targetEmbeddings})
        if (*user) bytes += bytesOf(**user);
    return bytes;
}

struct Variant {
    const char* name;
    void (*apply)(Config&, UserInputs&);
};

TEST(MemoryEstimate, HeldBytesAreExactlyWhatAResultHolds)
{
    const Variant variants[] = {
        {"paper layer, cross", [](Config&, UserInputs&) {}},
        {"self", [](Config& c, UserInputs&) { c.mode = AttentionMode::EncoderSelf; }},
        {"causal", [](Config& c, UserInputs&) { c.mode = AttentionMode::DecoderCausal; }},
        {"g = 2 key/value heads", [](Config& c, UserInputs&) { c.keyValueHeadCount = 2; }},
        {"multi-query, rotary", [](Config& c, UserInputs&) {
             c.keyValueHeadCount = 1;
             c.positional = PositionalEncoding::Rotary;
         }},
        {"biases and scales", [](Config& c, UserInputs&) {
             c.withBias = true;
             c.scales.key = 2.0f;
         }},
        {"presets on user weights, scaled", [](Config& c, UserInputs& in) {
             in.weights = std::make_shared<const AttentionWeights>(initialiseWeights(c.d_model, 3, WeightInit::Normal, false));
             c.presets.push_back(HeadPreset{});
             c.scales.query = 0.5f;
         }},
        {"user embeddings", [](Config& c, UserInputs& in) {
             in.sourceEmbeddings = std::make_shared<const MatrixF>(MatrixF::Random(7, c.d_model));
             in.targetEmbeddings = std::make_shared<const MatrixF>(MatrixF::Random(5, c.d_model));
         }},
    };
    for (const Variant& v : variants) {
        Config config = builtInExample();
        config.d_model = 32;
        config.headCount = 4;
        UserInputs inputs;
        v.apply(config, inputs);
        const auto result = compute(config, inputs);
        ASSERT_TRUE(result.ok()) << v.name << ": " << result.error();
        const Result& r = **result;
        SentenceOverrides overrides;
        if (inputs.sourceEmbeddings) overrides.sourceRows = inputs.sourceEmbeddings->rows();
        if (inputs.targetEmbeddings) overrides.targetRows = inputs.targetEmbeddings->rows();
        const MemoryEstimate e = estimateMemory(config, r.attention.queryCount(), r.attention.keyCount(), overrides);
        EXPECT_EQ(e.held(), heldBytes(r, inputs)) << v.name;
        EXPECT_EQ(e.maps, 2 * 4 * bytesOf(r.attention.heads[0].scores)) << v.name;
        EXPECT_EQ(e.analysis, 0u) << v.name;  // the app's compute: no export analysis
    }
}

TEST(MemoryEstimate, ResultBytesOfThePaperLayerAreTheHeldPart)
{
    // n_q = 2, n_k = 3, d = 4, h = 2: 4*2*4 + 3*3*4 + 2*2*2*3 + 4*16 = 156 floats.
    EXPECT_EQ(estimateResultBytes(2, 3, 4, 2), 156u * sizeof(float));
}

TEST(MemoryEstimate, ComputeScratchCountsEachSentenceBeforeItIsCopied)
{
    Config config = builtInExample();
    config.d_model = 16;
    config.headCount = 2;
    const std::size_t cross = estimateMemory(config, 10, 20).computeScratch;
    config.mode = AttentionMode::EncoderSelf;
    const std::size_t self = estimateMemory(config, 10, 10).computeScratch;
    // Cross embeds both sentences (10 + 20 rows), self one (10); plus one head's Q_i (10 x 8).
    EXPECT_EQ(cross, sizeof(float) * ((10 + 20) * 16 + 10 * 8));
    EXPECT_EQ(self, sizeof(float) * (10 * 16 + 10 * 8));
}

TEST(MemoryEstimate, AnalysisTermsGrowAsTheirAlgorithms)
{
    // The equivalence check forms the dense d x d W_i in double: quadrupling when d doubles.
    const double eq1 = static_cast<double>(factoredAnalysisBytes(2048, 64, 0, 0));
    EXPECT_DOUBLE_EQ(static_cast<double>(factoredAnalysisBytes(4096, 64, 0, 0)) / eq1, 4.0);
    EXPECT_EQ(factoredAnalysisBytes(4096, 64, 0, 0), std::size_t{8} * 4096 * 4096);
    // The spectrum of a square head holds nine d_k x d_k doubles at its peak (1.1 GiB at
    // d_k = 4096); at the export's bound d_k = 1024, d = 4096, well under 0.3 GiB.
    EXPECT_EQ(spectrumBytes(4096, 4096), std::size_t{9} * 8 * 4096 * 4096);
    EXPECT_LT(spectrumBytes(4096, 1024), std::size_t{300} << 20);
    // Thin heads: the QR copies of the factors dominate, linear in d.
    EXPECT_EQ(spectrumBytes(4096, 64), 2 * spectrumBytes(2048, 64));
    // Statistics: PCA working copy (n_q + n_k) x d_k and d_k^2 in double, ablation n_q x d float.
    EXPECT_EQ(headStatisticsBytes(10, 20, 16, 4), 8u * (30 * 4 + 16) + 4u * 10 * 16);
    // Ablation: the ablated sum n_q x d, the head n_q x d_k, W^O_i and its QR (d x d_k each), the
    // triangle r x d_k and head_i R^T (n_q x r), r = min(d, d_k), all in double.
    EXPECT_EQ(ablationBytes(10, 16, 4), 8u * (10 * 16 + 10 * 4 + 4 * 16 + 16 * 4 + 4 * 4 + 10 * 4));
}

TEST(MemoryEstimate, AnExportCountsItsAnalysisOneHeadAtATime)
{
    Config config = builtInExample();
    config.mode = AttentionMode::EncoderSelf;
    config.d_model = 4096;
    config.headCount = 1;
    AnalysisPlan plan{.factored = true, .equivalenceSampleRows = 256, .spectrum = false, .headStatistics = true};
    const MemoryEstimate withoutSpectrum = estimateMemory(config, 4096, 4096, {}, plan);
    plan.spectrum = true;
    const MemoryEstimate withSpectrum = estimateMemory(config, 4096, 4096, {}, plan);
    // The same Result; the spectrum adds its own phase (the factors W_i^Q, W_i^K stay).
    EXPECT_EQ(withSpectrum.held(), withoutSpectrum.held());
    // W_i^Q and W_i^K in double, 2 x 256 sampled rows in float, the spectrum, four statistics
    // vectors of n_q doubles.
    EXPECT_EQ(withSpectrum.analysis,
              2u * 8 * 4096 * 4096 + 4u * 512 * 4096 + spectrumBytes(4096, 4096) + 8u * 4 * 4096);
    // 16 heads of d_k = 256: the per-head terms do not add up over heads.
    config.headCount = 16;
    const MemoryEstimate sixteen = estimateMemory(config, 4096, 4096, {}, plan);
    EXPECT_LT(sixteen.analysis, withoutSpectrum.analysis);
}

TEST(MemoryEstimate, TheLimitCoversTheExportsAnalysisAndNamesTheField)
{
    Config config = builtInExample();
    config.mode = AttentionMode::EncoderSelf;
    config.sourceText.clear();
    for (int i = 0; i < 4096; ++i) config.sourceText += "w ";
    config.d_model = 4096;
    config.headCount = 16;
    // The app's compute fits; so does the export with its analysis (2.9 GiB, measured 2.88).
    const AnalysisPlan exportPlan{.factored = true, .equivalenceSampleRows = 256, .spectrum = true, .headStatistics = true};
    EXPECT_TRUE(validateConfig(config).empty());
    EXPECT_TRUE(validateConfig(config, {}, exportPlan).empty());
    EXPECT_LE(estimateMemory(config, 4096, 4096, {}, exportPlan).peak(), limits::maxResultBytes);
    // A scale slider's copy of the weights (+256 MiB) takes it over: refused before anything is
    // allocated, naming the sentence (the attention maps are the larger part).
    config.scales.value = 2.0f;
    const auto issues = validateConfig(config, {}, exportPlan);
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].field, ConfigField::Source) << issues[0].message;
    EXPECT_NE(issues[0].message.find("GiB at its peak"), std::string::npos) << issues[0].message;
    EXPECT_NE(issues[0].message.find("2 GiB of attention maps (4096 queries x 4096 keys x h = 16 heads)"),
              std::string::npos) << issues[0].message;
    EXPECT_NE(issues[0].message.find("for the per-head analysis"), std::string::npos) << issues[0].message;
}

}  // namespace
}  // namespace qkv
