// RunOptions' stop and readout rows on the synthetic checkpoints of tests/data/pretrained: a run
// stopped after a layer, and the logits at chosen positions, hold the very bits of a whole run
// (no tolerance: the same arithmetic, skipped where nobody reads it), also when a previous run
// with another stop or other rows lends its layers.

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/pretrained/model_run.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

std::string folder(const std::string& family) { return std::string(qkv::testDataDir()) + "/pretrained/" + family; }

// The tokens each fixture's reference ran (run.json or reference.json beside the checkpoint).
ModelTokens fixtureTokens(const std::string& family)
{
    std::ifstream run(folder(family) + "/run.json");
    const bool single = run.good();
    std::ifstream other(folder(family) + "/reference.json");
    const nlohmann::json json = nlohmann::json::parse(single ? run : other);
    ModelTokens tokens;
    if (json.contains("ids")) {
        tokens.ids = json["ids"].get<std::vector<std::int32_t>>();
    } else {
        tokens.ids = json["source_ids"].get<std::vector<std::int32_t>>();
        tokens.decoderIds = json["decoder_input_ids"].get<std::vector<std::int32_t>>();
    }
    return tokens;
}

struct Fixture {
    PretrainedModel model;
    ModelTokens tokens;
};

Fixture open(const std::string& family)
{
    Expected<PretrainedModel> model = openPretrainedModel(folder(family));
    EXPECT_TRUE(model.ok()) << (model ? "" : model.error());
    return {model ? std::move(*model) : PretrainedModel(), fixtureTokens(family)};
}

ModelRun run(const Fixture& f, const RunOptions& options = {})
{
    Expected<ModelRun> ran = runPretrainedModel(f.model, f.tokens, options);
    EXPECT_TRUE(ran.ok()) << (ran ? "" : ran.error());
    return ran ? std::move(*ran) : ModelRun();
}

// Bit for bit: X_q, X_kv, Q, K, V, every head's scores and attention, Concat and the output.
void expectSameLayer(const LayerRun& a, const LayerRun& b, Index l)
{
    EXPECT_TRUE(a.queryInput == b.queryInput) << "layer " << l;
    EXPECT_TRUE(a.keyValueInput == b.keyValueInput) << "layer " << l;
    EXPECT_TRUE(a.attention.query == b.attention.query && a.attention.key == b.attention.key &&
                a.attention.value == b.attention.value)
        << "layer " << l;
    ASSERT_EQ(a.attention.headCount(), b.attention.headCount());
    for (std::size_t i = 0; i < a.attention.heads.size(); ++i) {
        EXPECT_TRUE(a.attention.heads[i].scores == b.attention.heads[i].scores) << "layer " << l << " head " << i;
        EXPECT_TRUE(a.attention.heads[i].attention == b.attention.heads[i].attention) << "layer " << l << " head " << i;
    }
    EXPECT_TRUE(a.attention.headOutputs == b.attention.headOutputs && a.attention.output == b.attention.output)
        << "layer " << l;
}

// `part` is `whole` up to its stop: its layers, and hidden states h_0..h_b of each stack it reached.
void expectPrefixOf(const ModelRun& part, const ModelRun& whole)
{
    ASSERT_LE(part.layers.size(), whole.layers.size());
    for (std::size_t l = 0; l < part.layers.size(); ++l)
        expectSameLayer(*part.layers[l], *whole.layers[l], static_cast<Index>(l));
    for (const auto& [mine, theirs] : {std::pair{&part.hiddenStates, &whole.hiddenStates},
                                       std::pair{&part.decoderHiddenStates, &whole.decoderHiddenStates}}) {
        ASSERT_LE(mine->size(), theirs->size());
        for (std::size_t i = 0; i < mine->size(); ++i) {
            // A whole stack's last state is after its final norm; a stopped stack never has it.
            if (i + 1 == theirs->size() && mine->size() < theirs->size()) continue;
            EXPECT_TRUE((*mine)[i] == (*theirs)[i]) << "hidden state " << i;
        }
    }
}

// Each chosen row has the bits of the whole readout's row at its position.
void expectRowsOf(const ModelRun& chosen, const ModelRun& whole, const std::vector<Index>& positions)
{
    ASSERT_EQ(chosen.logitPositions, positions);
    ASSERT_EQ(chosen.logits.rows(), static_cast<Index>(positions.size()));
    for (std::size_t r = 0; r < positions.size(); ++r) {
        EXPECT_EQ(chosen.logitRow(positions[r]), static_cast<Index>(r));
        EXPECT_TRUE(chosen.logits.row(static_cast<Index>(r)) == whole.logits.row(positions[r]))
            << "position " << positions[r];
    }
}

// Position sets that put rows in every way Eigen's kernel takes them (groups of 4, the last
// n mod 4 alone, one row alone): each single position, all of them backwards, the last ones,
// every other one.
std::vector<std::vector<Index>> positionSets(Index n)
{
    std::vector<std::vector<Index>> sets;
    for (Index p = 0; p < n; ++p) sets.push_back({p});
    std::vector<Index> backwards, last, everyOther;
    for (Index p = n - 1; p >= 0; --p) backwards.push_back(p);
    for (Index p = std::max<Index>(0, n - 3); p < n; ++p) last.push_back(p);
    for (Index p = 1; p < n; p += 2) everyOther.push_back(p);
    sets.push_back(backwards);
    sets.push_back(last);
    sets.push_back(everyOther);
    return sets;
}

class RunOptionsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RunOptionsTest, StoppedRunHoldsTheWholeRunsBitsUpToItsLayer)
{
    const Fixture f = open(GetParam());
    const ModelRun whole = run(f);
    for (Index last = 0; last < f.model.layerCount(); ++last) {
        RunOptions options;
        options.lastLayer = last;
        const ModelRun stopped = run(f, options);
        ASSERT_EQ(static_cast<Index>(stopped.layers.size()), last + 1) << "stopped after " << last;
        EXPECT_EQ(stopped.lastLayer, last);
        EXPECT_EQ(stopped.logits.size(), 0) << "no readout after a stop";
        const LayerRun& layer = stopped.layer(last);
        const auto& states = layer.stack == ModelStack::Decoder && f.model.recipe.encoderDecoder()
                                 ? stopped.decoderHiddenStates
                                 : stopped.hiddenStates;
        EXPECT_EQ(static_cast<Index>(states.size()), layer.block + 1) << "h_0..h_b of the block it stopped in";
        expectPrefixOf(stopped, whole);
    }
}

TEST_P(RunOptionsTest, ChosenLogitRowsHoldTheWholeReadoutsBits)
{
    const Fixture f = open(GetParam());
    const ModelRun whole = run(f);
    ASSERT_GT(whole.logits.rows(), 0);
    const Index n = whole.logits.rows();
    ASSERT_EQ(static_cast<Index>(whole.logitPositions.size()), n);
    for (const std::vector<Index>& positions : positionSets(n)) {
        RunOptions options;
        options.logitRows = LogitRows::Chosen;
        options.logitPositions = positions;
        const ModelRun chosen = run(f, options);
        expectRowsOf(chosen, whole, positions);
        expectPrefixOf(chosen, whole);
    }
    RunOptions none;
    none.logitRows = LogitRows::None;
    const ModelRun without = run(f, none);
    EXPECT_EQ(without.logits.size(), 0);
    EXPECT_TRUE(without.logitPositions.empty());
    EXPECT_EQ(without.logitRow(0), -1);
    EXPECT_TRUE(without.hiddenStates.back() == whole.hiddenStates.back());
}

// A previous run with another stop, other rows or other heads lends only what it holds whole.
TEST_P(RunOptionsTest, ReuseAcrossStopsAndRowsKeepsTheBits)
{
    const Fixture f = open(GetParam());
    const Index L = f.model.layerCount();
    const ModelHead head{L - 1, 0};
    RunOptions ablated;
    ablated.ablatedHeads = {head};
    const ModelRun fresh = run(f, ablated);
    const ModelRun whole = run(f);
    for (Index stop = 0; stop < L; ++stop) {
        RunOptions stopAt;
        stopAt.lastLayer = stop;
        const auto stopped = std::make_shared<const ModelRun>(run(f, stopAt));
        // A whole ablated run from a stopped one: only the blocks the stopped run finished are lent.
        RunOptions fromStopped = ablated;
        fromStopped.previous = stopped;
        const ModelRun grown = run(f, fromStopped);
        EXPECT_LE(grown.firstRecomputedLayer, stop) << "stopped after " << stop;
        expectPrefixOf(grown, fresh);
        expectPrefixOf(fresh, grown);
        EXPECT_TRUE(grown.logits == fresh.logits) << "stopped after " << stop;
        // A stopped run from a whole one with the same heads: all shared, nothing computed.
        RunOptions fromWhole = stopAt;
        fromWhole.previous = std::make_shared<const ModelRun>(whole);
        const ModelRun shrunk = run(f, fromWhole);
        EXPECT_EQ(shrunk.firstRecomputedLayer, L);
        ASSERT_EQ(static_cast<Index>(shrunk.layers.size()), stop + 1);
        expectPrefixOf(shrunk, whole);
        EXPECT_EQ(shrunk.logits.size(), 0);
    }
    // Other rows of the same run: the layers are shared, the readout computed again.
    RunOptions oneRow;
    oneRow.logitRows = LogitRows::Chosen;
    oneRow.logitPositions = {whole.logits.rows() - 1};
    oneRow.previous = std::make_shared<const ModelRun>(whole);
    const ModelRun row = run(f, oneRow);
    EXPECT_EQ(row.firstRecomputedLayer, L);
    EXPECT_EQ(row.layers.front().get(), oneRow.previous->layers.front().get());
    expectRowsOf(row, whole, oneRow.logitPositions);
    // And all rows again from that one-row run.
    RunOptions all;
    all.previous = std::make_shared<const ModelRun>(row);
    EXPECT_TRUE(run(f, all).logits == whole.logits);
}

INSTANTIATE_TEST_SUITE_P(Families, RunOptionsTest,
                         ::testing::Values("bert", "roberta", "distilbert", "gpt2", "llama", "bart", "marian"));

TEST(RunOptionsErrors, BadStopsAndPositionsAreRefusedWithAMessage)
{
    const Fixture f = open("bert");
    const auto n = static_cast<Index>(f.tokens.ids.size());
    const auto error = [&f](const RunOptions& options) {
        Expected<ModelRun> ran = runPretrainedModel(f.model, f.tokens, options);
        return ran ? std::string() : ran.error();
    };
    RunOptions stop;
    stop.lastLayer = f.model.layerCount();
    EXPECT_NE(error(stop).find("no attention layer 3 to stop after"), std::string::npos) << error(stop);
    stop.lastLayer = -2;
    EXPECT_NE(error(stop).find("to stop after"), std::string::npos) << error(stop);

    RunOptions rows;
    rows.logitRows = LogitRows::Chosen;
    rows.logitPositions = {0, n};
    EXPECT_NE(error(rows).find("no position " + std::to_string(n)), std::string::npos) << error(rows);
    rows.logitPositions = {-1};
    EXPECT_NE(error(rows).find("no position -1"), std::string::npos) << error(rows);
    rows.logitPositions = {2, 1, 2};
    EXPECT_NE(error(rows).find("position 2 is asked for twice"), std::string::npos) << error(rows);
    rows.logitPositions = {};
    const std::string emptyList = error(rows);
    EXPECT_TRUE(emptyList.empty()) << "no position asked: no rows, " << emptyList;
}

}  // namespace
}  // namespace qkv
