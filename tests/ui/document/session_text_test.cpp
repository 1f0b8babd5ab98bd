// The words the controls and head titles use for a session: where the weights come from, when
// the seed and init do not apply, why the token scale is not 1.

#include <gtest/gtest.h>

#include "core/presets/head_presets.hpp"
#include "ui/document/session_text.hpp"

namespace qkv::ui {
namespace {

Session generatedSession()
{
    Session s;
    s.config.sourceText = "the cat";
    s.config.targetText = "le chat";
    s.config.seed = 42;
    return s;
}

HeadPreset preset(Index head, HeadPresetKind kind, Index rank = 1)
{
    HeadPreset p;
    p.head = head;
    p.kind = kind;
    p.rank = rank;
    return p;
}

TEST(SessionText, GeneratedWeightsNameTheSeedAndTheSeedApplies)
{
    const Session s = generatedSession();
    const QStringList lines = weightsOriginLines(s);
    ASSERT_EQ(lines.size(), 1);
    EXPECT_TRUE(lines[0].contains(QStringLiteral("seed 42"))) << lines[0].toStdString();
    EXPECT_TRUE(seedNote(s).isEmpty());
    EXPECT_TRUE(initNote(s).isEmpty());
    EXPECT_EQ(headTitles(s), (QStringList{"random", "random", "random", "random"}));
}

TEST(SessionText, PresetsAndTheirSettingsAreSaid)
{
    Session s = generatedSession();
    s.config = withPreset(s.config, preset(1, HeadPresetKind::PreviousToken));
    s.config = withPreset(s.config, preset(0, HeadPresetKind::SameMeaning));
    s.config = withPreset(s.config, preset(3, HeadPresetKind::LowRank, 2));
    s.config.ablatedHeads = {2};
    const QString text = weightsOriginLines(s).join(QLatin1Char('\n'));
    EXPECT_TRUE(text.contains(QStringLiteral("head 2 previous token"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("head 1 same meaning"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("Switched off: head 3"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("scaled by 0.03"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("embeddings by meaning"))) << text.toStdString();
    EXPECT_EQ(headTitles(s), (QStringList{"same meaning", "previous token", "random", "low rank, r = 2"}));
    EXPECT_TRUE(tokenScaleNote(s.config).contains(QStringLiteral("head 2"))) << tokenScaleNote(s.config).toStdString();
    s.config.tokenEmbeddingScale = 1.0f;
    EXPECT_TRUE(tokenScaleNote(s.config).isEmpty());
    // Back at the paper's settings the titles stop claiming the jobs, and say why.
    s.config.embeddings = EmbeddingKind::Word;
    EXPECT_EQ(headTitles(s), (QStringList{"not same meaning now (embeddings by word, not by meaning)",
                                          "not previous token now (token scale 1 > 0.1, the words drown the positions)",
                                          "random", "low rank, r = 2"}));
}

TEST(SessionText, StoredWeightsSayWhereFromAndTheSeedOnlyMakesEmbeddings)
{
    Session s = generatedSession();
    s.weights = std::make_shared<const AttentionWeights>(initialiseWeights(64, 1, WeightInit::Normal, false));
    s.weightsProvenance.file = "/data/layer.safetensors";
    s.weightsProvenance.heads = {HeadOrigin::File, HeadOrigin::Edited, HeadOrigin::File, HeadOrigin::Edited};
    const QString text = weightsOriginLines(s).join(QLatin1Char('\n'));
    EXPECT_TRUE(text.contains(QStringLiteral("layer.safetensors"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("heads 2 and 4 edited"))) << text.toStdString();
    EXPECT_FALSE(text.contains(QStringLiteral("/data/")));
    EXPECT_TRUE(seedNote(s).contains(QStringLiteral("embeddings only"))) << seedNote(s).toStdString();
    EXPECT_TRUE(initNote(s).startsWith(QStringLiteral("Not used"))) << initNote(s).toStdString();
    EXPECT_EQ(headTitles(s), (QStringList{"from file", "edited", "from file", "edited"}));

    // A random preset draws from the seed again: seed and init apply.
    s.config = withPreset(s.config, preset(0, HeadPresetKind::Random));
    EXPECT_TRUE(seedNote(s).isEmpty());
    EXPECT_TRUE(initNote(s).isEmpty());
}

TEST(SessionText, GivenEmbeddingsLeaveTheSeedTheWeightsOnly)
{
    Session s = generatedSession();  // cross mode: both sentences are read
    s.sourceEmbeddings = std::make_shared<const MatrixF>(MatrixF::Zero(2, 64));
    EXPECT_TRUE(seedNote(s).isEmpty());  // the target is still generated
    s.targetEmbeddings = std::make_shared<const MatrixF>(MatrixF::Zero(2, 64));
    s.sourceEmbeddingsFile = "x.npy";
    EXPECT_TRUE(seedNote(s).contains(QStringLiteral("weights only"))) << seedNote(s).toStdString();
    EXPECT_TRUE(weightsOriginLines(s).join(QString()).contains(QStringLiteral("Source X from x.npy")));
}

// What a scenario replaced, in one sentence; nothing when it changes nothing.
TEST(SessionText, AScenarioSaysWhatItReplaced)
{
    Session before;
    before.config.mode = AttentionMode::Cross;
    Session after = before;
    EXPECT_EQ(scenarioChanges(before, after), QString());
    after.config.targetText = "the cat saw the dog";
    after.config.mode = AttentionMode::DecoderCausal;
    after.config.d_model = 128;
    EXPECT_EQ(scenarioChanges(before, after),
              QStringLiteral("It replaced your target sentence and changed the mode (cross → causal) and d_model "
                             "(64 → 128)."));
    after.config.sourceText = "another source";
    EXPECT_TRUE(scenarioChanges(before, after).startsWith(QStringLiteral("It replaced your source and target")));
}

}  // namespace
}  // namespace qkv::ui
