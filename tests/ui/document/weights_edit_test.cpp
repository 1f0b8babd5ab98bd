// What Document::editWeights() stores: only the edited heads' blocks come from the editor's
// weights; every other entry stays the stored one (so other heads' presets stay removable).

#include <gtest/gtest.h>

#include "ui/document/weights_edit.hpp"

namespace qkv::ui {
namespace {

Config layerConfig(Index d_model, Index h, Index g, bool bias)
{
    Config config;
    config.d_model = d_model;
    config.headCount = h;
    config.keyValueHeadCount = g;
    config.withBias = bias;
    return config;
}

// Every entry of `edited` is base + 1, so each entry says where it came from.
AttentionWeights plusOne(const AttentionWeights& base)
{
    AttentionWeights w = base;
    for (MatrixF* m : {&w.queryProjection, &w.keyProjection, &w.valueProjection, &w.outputProjection}) m->array() += 1.0f;
    if (w.hasBias())
        for (auto* b : {&*w.queryBias, &*w.keyBias, &*w.valueBias, &*w.outputBias}) b->array() += 1.0f;
    return w;
}

TEST(WeightsEdit, OnlyTheEditedHeadsBlocksChange)
{
    const Config config = layerConfig(16, 4, 2, true);  // d_k = 4, heads 0,1 share key/value head 0
    const HeadGrouping g = config.grouping();
    const AttentionWeights base = initialiseWeights(16, g.keyValueWidth(), 5, WeightInit::Normal, true);
    const AttentionWeights edited = plusOne(base);
    const AttentionWeights merged = mergeEditedHeads(base, edited, {2}, g);  // head 3: key/value head 1

    for (Index c = 0; c < 16; ++c)
        for (Index r = 0; r < 16; ++r) {
            const bool head2 = c / 4 == 2;
            EXPECT_EQ(merged.queryProjection(r, c), head2 ? edited.queryProjection(r, c) : base.queryProjection(r, c));
            EXPECT_EQ(merged.outputProjection(c, r), head2 ? edited.outputProjection(c, r) : base.outputProjection(c, r));
        }
    for (Index c = 0; c < g.keyValueWidth(); ++c)
        for (Index r = 0; r < 16; ++r) {
            const bool group1 = c / 4 == 1;
            EXPECT_EQ(merged.keyProjection(r, c), group1 ? edited.keyProjection(r, c) : base.keyProjection(r, c));
            EXPECT_EQ(merged.valueProjection(r, c), group1 ? edited.valueProjection(r, c) : base.valueProjection(r, c));
            EXPECT_EQ((*merged.keyBias)(c), group1 ? (*edited.keyBias)(c) : (*base.keyBias)(c));
        }
    for (Index c = 0; c < 16; ++c) EXPECT_EQ((*merged.queryBias)(c), c / 4 == 2 ? (*edited.queryBias)(c) : (*base.queryBias)(c));
    EXPECT_EQ(*merged.outputBias, *edited.outputBias);  // b^O belongs to no head: the editor's
}

TEST(WeightsEdit, ProblemsAreNamed)
{
    const Config config = layerConfig(16, 4, 0, false);
    const AttentionWeights good = initialiseWeights(16, 16, 1, WeightInit::Normal, false);
    EXPECT_EQ(weightsEditProblem(good, {0, 3}, config), "");
    EXPECT_NE(weightsEditProblem(good, {4}, config).find("head 5"), std::string::npos);
    EXPECT_NE(weightsEditProblem(initialiseWeights(8, 8, 1, WeightInit::Normal, false), {0}, config).find("shape"),
              std::string::npos);
    EXPECT_NE(weightsEditProblem(initialiseWeights(16, 16, 1, WeightInit::Normal, true), {0}, config).find("biases"),
              std::string::npos);
    AttentionWeights nan = good;
    nan.valueProjection(3, 3) = std::numeric_limits<float>::quiet_NaN();
    EXPECT_NE(weightsEditProblem(nan, {0}, config).find("NaN"), std::string::npos);
}

TEST(WeightsEdit, ProvenanceMarksTheEditedHeads)
{
    const WeightsProvenance generated = editedProvenance({}, false, 4, {1});
    EXPECT_EQ(generated.file, "");
    EXPECT_EQ(generated.heads, (std::vector<HeadOrigin>{HeadOrigin::Generated, HeadOrigin::Edited, HeadOrigin::Generated,
                                                        HeadOrigin::Generated}));
    WeightsProvenance file;
    file.file = "layer.safetensors";
    const WeightsProvenance fromFile = editedProvenance(file, true, 3, {0, 2});
    EXPECT_EQ(fromFile.file, "layer.safetensors");
    EXPECT_EQ(fromFile.heads, (std::vector<HeadOrigin>{HeadOrigin::Edited, HeadOrigin::File, HeadOrigin::Edited}));
}

}  // namespace
}  // namespace qkv::ui
