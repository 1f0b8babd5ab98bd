// The document: every edit is one undo step with a clear text; view options are saved but not
// undo steps; presets that must be fitted compute off the GUI thread; editWeights() is what a
// weights editor calls.

#include <QSignalSpy>
#include <QUndoStack>

#include <gtest/gtest.h>

#include "core/presets/head_presets.hpp"
#include "ui/document/document.hpp"

namespace qkv::ui {
namespace {

Config smallConfig()
{
    Config config;
    config.sourceText = "the cat sat on the mat";
    config.targetText = "the cat sat on the mat";
    config.mode = AttentionMode::EncoderSelf;
    config.d_model = 32;
    config.headCount = 4;
    config.seed = 9;
    return config;
}

HeadPreset preset(Index head, HeadPresetKind kind)
{
    HeadPreset p;
    p.head = head;
    p.kind = kind;
    return p;
}

class DocumentTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        document.reset(smallConfig());
        document.waitUntilIdle();
        ASSERT_TRUE(document.result());
    }
    Document document;
};

TEST_F(DocumentTest, APresetIsOneUndoStepAndSaysWhatElseItSet)
{
    QSignalSpy notices(&document, &Document::notice);
    const Config before = document.config();
    document.applyPreset(preset(1, HeadPresetKind::SamePosition));
    document.waitUntilIdle();
    EXPECT_EQ(document.undoStack()->count(), 1);
    EXPECT_TRUE(document.undoStack()->undoText().contains(QStringLiteral("head 2")));
    ASSERT_EQ(notices.count(), 1);
    EXPECT_TRUE(notices.first().first().toString().contains(QStringLiteral("token embeddings scaled by 0.03")))
        << notices.first().first().toString().toStdString();
    EXPECT_EQ(document.config().tokenEmbeddingScale, positionalPresetTokenScale);
    // The head does its job: query t's largest weight is key t.
    const MatrixF& a = document.result()->attention.heads[1].attention;
    for (Index q = 0; q < a.rows(); ++q) {
        Index argmax = 0;
        a.row(q).maxCoeff(&argmax);
        EXPECT_EQ(argmax, q);
    }
    EXPECT_EQ(document.headTitles(document.config())[1], QStringLiteral("same position"));

    document.undoStack()->undo();
    document.waitUntilIdle();
    EXPECT_EQ(document.config(), before);
    EXPECT_EQ(document.result()->config, before);
}

TEST_F(DocumentTest, FittingAPresetRunsOffTheGuiThread)
{
    const auto before = document.result();
    document.applyPreset(preset(0, HeadPresetKind::PreviousToken));
    // Not computed inline: the old result is still there and the runner is busy.
    EXPECT_EQ(document.result(), before);
    EXPECT_TRUE(document.isComputing());
    document.waitUntilIdle();
    EXPECT_NE(document.result(), before);
    EXPECT_EQ(document.result()->config.presets.size(), 1u);
}

TEST_F(DocumentTest, RemovingAPresetAndSwitchingHeadsOffAreUndoable)
{
    document.applyPreset(preset(2, HeadPresetKind::Uniform));
    document.removePreset(2);
    EXPECT_TRUE(document.config().presets.empty());
    document.setAblatedHeads({3, 1, 3});
    document.waitUntilIdle();
    EXPECT_EQ(document.config().ablatedHeads, (std::vector<Index>{1, 3}));
    EXPECT_TRUE(document.result()->attention.isAblated(1));
    EXPECT_TRUE(document.undoStack()->undoText().contains(QStringLiteral("heads 2 and 4")));
    EXPECT_EQ(document.undoStack()->count(), 3);
    document.undoStack()->undo();
    document.waitUntilIdle();
    EXPECT_TRUE(document.config().ablatedHeads.empty());
    EXPECT_FALSE(document.result()->attention.isAblated(1));
    document.undoStack()->undo();
    EXPECT_EQ(document.config().presets.size(), 1u);
}

TEST_F(DocumentTest, EditWeightsStoresTheHeadMarksItEditedAndKeepsOtherPresets)
{
    document.applyPreset(preset(0, HeadPresetKind::Uniform));
    document.applyPreset(preset(1, HeadPresetKind::SameToken));
    document.waitUntilIdle();
    const auto before = document.result();
    const HeadGrouping g = before->grouping();

    // The editor's way: a changed copy of the unscaled weights.
    auto edited = std::make_shared<AttentionWeights>(*before->unscaledWeights);
    edited->queryHead(1, g).array() *= 2.0f;  // head 2 (same token), made sharper
    edited->queryHead(3, g).array() += 5.0f;  // head 4, changed but not named: ignored
    ASSERT_TRUE(document.editWeights(edited, {1}, QStringLiteral("Edit head 2 W^Q")));
    document.waitUntilIdle();
    const auto after = document.result();

    EXPECT_EQ(document.undoStack()->undoText(), QStringLiteral("Edit head 2 W^Q"));
    ASSERT_TRUE(document.session().weights);
    EXPECT_EQ(document.session().weightsProvenance.heads[1], HeadOrigin::Edited);
    EXPECT_EQ(document.config().presets.size(), 1u);  // head 2's preset dropped, head 1's kept
    EXPECT_EQ(document.config().presets.front().head, 0);
    const QStringList titles = document.headTitles(document.config());
    EXPECT_EQ(titles, (QStringList{"uniform", "edited", "random", "random"}));
    EXPECT_EQ(after->unscaledWeights->queryHead(1, g), edited->queryHead(1, g));            // the edit
    EXPECT_EQ(after->unscaledWeights->queryHead(3, g), before->unscaledWeights->queryHead(3, g));  // not named
    EXPECT_EQ(after->attention.heads[0].attention, before->attention.heads[0].attention);  // uniform re-applied
    // Removing the other preset gives that head its generated weights back (not baked in).
    document.removePreset(0);
    document.waitUntilIdle();
    Config plain = smallConfig();
    auto generated = compute(plain);
    ASSERT_TRUE(generated);
    EXPECT_EQ(document.result()->unscaledWeights->queryHead(0, g), generated.value()->unscaledWeights->queryHead(0, g));

    document.undoStack()->undo();
    document.undoStack()->undo();
    document.waitUntilIdle();
    EXPECT_FALSE(document.session().weights);
    EXPECT_EQ(document.result()->attention.heads[1].attention, before->attention.heads[1].attention);
}

TEST_F(DocumentTest, EditWeightsRefusesWhatDoesNotFit)
{
    QSignalSpy notices(&document, &Document::notice);
    auto wrong = std::make_shared<const AttentionWeights>(initialiseWeights(16, 1, WeightInit::Normal, false));
    EXPECT_FALSE(document.editWeights(wrong, {0}, QStringLiteral("edit")));
    EXPECT_FALSE(document.editWeights(document.result()->unscaledWeights, {7}, QStringLiteral("edit")));
    EXPECT_EQ(document.undoStack()->count(), 0);
    EXPECT_EQ(notices.count(), 2);
}

TEST_F(DocumentTest, ViewOptionsAreSavedButNotUndoStepsAndMarkTheDocumentModified)
{
    EXPECT_FALSE(document.isModified());
    QSignalSpy modified(&document, &Document::modifiedChanged);
    ViewOptions view = document.viewOptions();
    view.head = 2;
    view.colormap = "magma";
    document.setViewOptions(view);
    EXPECT_EQ(document.undoStack()->count(), 0);
    EXPECT_TRUE(document.isModified());
    ASSERT_EQ(modified.count(), 1);
    view.head = 0;
    view.colormap = "viridis";
    document.setViewOptions(view);  // back to the saved view: not modified
    EXPECT_FALSE(document.isModified());

    Config config = document.config();
    config.seed = 77;
    document.edit(config, QStringLiteral("seed"));
    EXPECT_TRUE(document.isModified());
    document.markSaved(QStringLiteral("/tmp/x.qkv.json"));
    EXPECT_FALSE(document.isModified());
    EXPECT_EQ(document.displayName(), QStringLiteral("x.qkv.json"));
    document.undoStack()->undo();
    EXPECT_TRUE(document.isModified());
}

TEST_F(DocumentTest, AScenarioIsOneUndoStepThatKeepsTheView)
{
    ViewOptions view = document.viewOptions();
    view.tab = "factored";
    document.setViewOptions(view);
    Session scenario;
    scenario.config = withPreset(smallConfig(), preset(0, HeadPresetKind::SameToken));
    scenario.config.mode = AttentionMode::DecoderCausal;
    scenario.view.tab = "heads";
    document.applyScenario(scenario, QStringLiteral("Decoder"));
    EXPECT_EQ(document.undoStack()->count(), 1);
    EXPECT_EQ(document.undoStack()->undoText(), QStringLiteral("Scenario: Decoder"));
    EXPECT_EQ(document.config(), scenario.config);
    EXPECT_EQ(document.viewOptions().tab, "factored");
    document.undoStack()->undo();
    EXPECT_EQ(document.config(), smallConfig());
}

TEST_F(DocumentTest, ARestoredUnsavedSessionStaysModifiedUntilSaved)
{
    Session s;
    s.config = smallConfig();
    document.replace(s, QStringLiteral("/tmp/a.qkv.json"), QString(), true);
    EXPECT_TRUE(document.isModified());
    Config config = document.config();
    config.seed = 1;
    document.edit(config, QStringLiteral("seed"));
    document.undoStack()->undo();
    EXPECT_TRUE(document.isModified());  // undo does not reach a saved state
    document.markSaved(QStringLiteral("/tmp/a.qkv.json"));
    EXPECT_FALSE(document.isModified());
}

}  // namespace
}  // namespace qkv::ui
