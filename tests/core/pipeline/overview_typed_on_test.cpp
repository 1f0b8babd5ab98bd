// The Model tab typed on (computeModelOverview with the previous overview): a causal model's
// positions both sentences share are taken from the earlier overview in the runs, every head's
// statistics and the predictions, and every number is the one a fresh overview computes, bit for
// bit. A synthetic GPT-2 of d_model 64 and heads of 16 floats, with the fixture's byte-level BPE
// (tests/data/pretrained/gpt2's vocab.json and merges.txt, 643 tokens) beside it.

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "bench/pretrained/synthetic_checkpoints.hpp"
#include "core/pipeline/layer_input.hpp"
#include "core/pipeline/model_overview.hpp"
#include "support/pretrained_fixtures.hpp"
#include "support/test_folder.hpp"

namespace qkv {
namespace {

bool sameBits(const MatrixF& a, const MatrixF& b)
{
    // memcmp never sees the null data of an empty matrix
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           (a.size() == 0 || std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * sizeof(float)) == 0);
}

// NaN == NaN here: a cell without a value on both sides is the same.
bool sameGrid(const MatrixD& a, const MatrixD& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
    for (Index i = 0; i < a.size(); ++i)
        if (!(a.data()[i] == b.data()[i] || (std::isnan(a.data()[i]) && std::isnan(b.data()[i])))) return false;
    return true;
}

void expectSameOverview(const ModelOverview& typed, const ModelOverview& fresh, const std::string& what)
{
    ASSERT_EQ(typed.layerCount(), fresh.layerCount());
    for (Index l = 0; l < typed.layerCount(); ++l)
        for (std::size_t i = 0; i < typed.layer(l).attention.heads.size(); ++i)
            EXPECT_TRUE(sameBits(typed.layer(l).attention.heads[i].attention, fresh.layer(l).attention.heads[i].attention))
                << what << ": layer " << l << " head " << i;
    const HeadStatisticGrids& a = typed.statistics;
    const HeadStatisticGrids& b = fresh.statistics;
    EXPECT_TRUE(sameGrid(a.entropy, b.entropy) && sameGrid(a.meanDistance, b.meanDistance) &&
                sameGrid(a.firstTokenWeight, b.firstTokenWeight) && sameGrid(a.ownPositionWeight, b.ownPositionWeight) &&
                sameGrid(a.previousToken, b.previousToken) && sameGrid(a.induction, b.induction))
        << what << ": grids";
    for (const auto& [x, y] : {std::pair{&typed.predictions, &fresh.predictions},
                               std::pair{&typed.baselinePredictions, &fresh.baselinePredictions}}) {
        ASSERT_EQ(x->size(), y->size()) << what;
        for (std::size_t p = 0; p < x->size(); ++p) {
            EXPECT_EQ((*x)[p].position, (*y)[p].position);
            ASSERT_EQ((*x)[p].top.size(), (*y)[p].top.size());
            for (std::size_t r = 0; r < (*x)[p].top.size(); ++r) {
                EXPECT_EQ((*x)[p].top[r].id, (*y)[p].top[r].id) << what << " position " << p;
                EXPECT_EQ((*x)[p].top[r].probability, (*y)[p].top[r].probability) << what << " position " << p;
            }
        }
    }
}

// The synthetic GPT-2 with the fixture's tokenizer files, in `folder`; its path.
std::string writeModel(const TestFolder& folder)
{
    constexpr bench::SyntheticShape shape{"gpt2-tokens", bench::SyntheticFamily::Gpt2, 3, 64, 4, 128, 643, 128, 40};
    Expected<std::string> path = bench::syntheticCheckpoint(shape, folder.path().string());
    EXPECT_TRUE(path.ok()) << (path ? "" : path.error());
    if (!path) return "";
    for (const char* file : {"vocab.json", "merges.txt"})
        std::filesystem::copy_file(pretrainedFixture("gpt2") + "/" + file, *path + "/" + file);
    return *path;
}

TEST(OverviewTypedOn, TheSharedPositionsComeFromTheEarlierOverviewWithEveryBit)
{
    TestFolder folder("overview_typed_on");
    Expected<PretrainedModel> opened = openPretrainedModel(writeModel(folder));
    ASSERT_TRUE(opened.ok()) << (opened ? "" : opened.error());
    const auto model = std::make_shared<const PretrainedModel>(std::move(*opened));

    const auto overview = [&](const std::string& text, const std::set<ModelHead>& off,
                              std::shared_ptr<const ModelOverview> previous) {
        ModelOverviewRequest request;
        request.target = text;
        request.ablatedHeads = off;
        request.previous = std::move(previous);
        Expected<ModelOverview> computed = computeModelOverview(model, request);
        EXPECT_TRUE(computed.ok()) << (computed ? "" : computed.error());
        return std::make_shared<const ModelOverview>(computed ? std::move(*computed) : ModelOverview());
    };
    const std::string first = "the cat sat on the mat and the dog";
    const std::string longer = first + " sat on the cat";
    for (const std::set<ModelHead>& off : {std::set<ModelHead>{}, std::set<ModelHead>{ModelHead{1, 2}}}) {
        const auto earlier = overview(first, off, nullptr);
        const auto typed = overview(longer, off, earlier);
        const auto fresh = overview(longer, off, nullptr);
        const Index shared = static_cast<Index>(earlier->sentences.tokens.ids.size());
        EXPECT_EQ(typed->baseline->firstRecomputedPosition, shared);
        EXPECT_EQ(typed->run->firstRecomputedPosition, shared);
        expectSameOverview(*typed, *fresh, off.empty() ? "every head on" : "a head off");
        // Heads switched off after typing: the earlier run had other heads off.
        const auto switched = overview(longer, {ModelHead{0, 1}}, typed);
        expectSameOverview(*switched, *overview(longer, {ModelHead{0, 1}}, nullptr), "switched after typing");
        // Typed on with other heads off than before: the baseline is typed on, the run is not.
        const auto both = overview(longer + " again", {ModelHead{0, 3}}, earlier);
        EXPECT_GT(both->baseline->firstRecomputedPosition, 0);
        expectSameOverview(*both, *overview(longer + " again", {ModelHead{0, 3}}, nullptr), "typed and switched");
    }
}

// A later layer's input (the app's layer views of a model): the runs below the layer keep no
// maps, and a sentence typed on computes only its new positions, with the bits of a fresh input.
TEST(OverviewTypedOn, ALayersInputTypedOnHasTheBitsOfAFreshOne)
{
    TestFolder folder("layer_input_typed_on");
    const std::string path = writeModel(folder);
    Expected<PretrainedModel> opened = openPretrainedModel(path);
    ASSERT_TRUE(opened.ok()) << (opened ? "" : opened.error());
    const auto model = std::make_shared<const PretrainedModel>(std::move(*opened));
    const CheckpointLayer& layer = model->checkpoint.layers[2];  // h.2.attn: two blocks below it
    Expected<std::shared_ptr<const ModelInput>> typing = loadLayerInput(model->checkpoint, layer, model);
    Expected<std::shared_ptr<const ModelInput>> fresh = loadLayerInput(model->checkpoint, layer, model);
    ASSERT_TRUE(typing.ok() && fresh.ok());
    std::string text = "the cat";
    for (const char* more : {" sat", " on the mat", " and", " the dog barked"}) {
        ASSERT_TRUE((*typing)->embed(text).ok());
        text += more;
        Expected<ModelSentence> typed = (*typing)->embed(text);
        Expected<ModelSentence> whole = (*fresh)->embed(text);
        ASSERT_TRUE(typed.ok() && whole.ok());
        EXPECT_TRUE(sameBits(typed->input, whole->input)) << text;
        // The two inputs share nothing: the fresh one computes every position each time.
        Expected<std::shared_ptr<const ModelInput>> once = loadLayerInput(model->checkpoint, layer, model);
        ASSERT_TRUE(once.ok());
        EXPECT_TRUE(sameBits((*once)->embed(text)->input, whole->input)) << text;
    }
}

}  // namespace
}  // namespace qkv
