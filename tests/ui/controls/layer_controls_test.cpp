// The layer's settings in the controls: g, positions, embeddings and the token scale drive the computation; each
// says what is wrong at its field; the weights say where they come from.

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QSpinBox>
#include <QToolButton>
#include <QUndoStack>

#include "core/presets/head_presets.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/controls/controls_panel.hpp"
#include "ui/controls/field_message.hpp"
#include "ui/controls/inputs_group.hpp"
#include "ui/controls/weights_group.hpp"
#include "ui/costs/costs_view.hpp"
#include "ui/mainwindow/view_tabs.hpp"

namespace qkv::ui::testing {
namespace {

class LayerControlsTest : public WindowTest {
protected:
    ControlsPanel* controls() const { return window->controls(); }
    InputsGroup* inputs() const { return controls()->inputs(); }
    Document* document() const { return window->document(); }
    static void choose(QComboBox* box, const QVariant& data)
    {
        const int index = box->findData(data);
        ASSERT_GE(index, 0) << data.toString().toStdString();
        box->setCurrentIndex(index);
    }
    // Types into a spin box as a person would (select all, then the keys).
    static void type(QAbstractSpinBox* box, const char* text)
    {
        box->setFocus();
        box->selectAll();
        QTest::keyClicks(box, QString::fromLatin1(text));
    }
};

TEST_F(LayerControlsTest, KeyValueHeadsDriveTheComputationAndTheComparisonShowsTheSameG)
{
    QComboBox* g = controls()->keyValueHeadsBox();
    EXPECT_EQ(g->currentData().toLongLong(), 0);  // follows h
    EXPECT_TRUE(g->currentText().contains(QStringLiteral("4")));
    choose(g, QVariant::fromValue<qlonglong>(2));
    settle();
    const auto result = document()->result();
    EXPECT_EQ(result->attention.grouping.keyValueHeadCount, 2);
    EXPECT_EQ(result->weights->keyProjection.cols(), 2 * 16);               // W^K: d_model x g d_k
    EXPECT_EQ(result->attention.keyHead(0), result->attention.keyHead(1));  // heads 1 and 2 share K
    CostsView* comparison = window->tabs()->costsView();
    comparison->ensureCurrent();
    EXPECT_EQ(comparison->keyValueHeads(), 2);

    // The Costs tab's box sets the layer's g: one g.
    comparison->setKeyValueHeads(1);
    settle();
    EXPECT_EQ(document()->config().keyValueHeadCount, 1);
    EXPECT_EQ(g->currentData().toLongLong(), 1);
    EXPECT_EQ(document()->result()->attention.grouping.keyValueHeadCount, 1);

    // A chosen g stays when h changes, and says so at its field when it no longer divides h.
    choose(g, QVariant::fromValue<qlonglong>(2));
    controls()->headsBox()->setValue(1);
    settle();
    EXPECT_TRUE(controls()->keyValueHeadsMessage()->isVisible());
    EXPECT_TRUE(controls()->keyValueHeadsMessage()->text().contains(QStringLiteral("divide")))
        << controls()->keyValueHeadsMessage()->text().toStdString();
    // g that follows h follows it.
    choose(g, QVariant::fromValue<qlonglong>(0));
    controls()->headsBox()->setValue(8);
    settle();
    EXPECT_FALSE(controls()->keyValueHeadsMessage()->isVisible());
    EXPECT_EQ(document()->result()->attention.grouping.keyValueHeadCount, 8);
}

TEST_F(LayerControlsTest, PositionsDriveTheComputationAndTheRotaryBaseShowsForRotaryOnly)
{
    inputs()->show();
    const auto sinusoidal = document()->result();
    EXPECT_FALSE(inputs()->ropeBaseBox()->isVisible());
    choose(inputs()->positionalBox(), static_cast<int>(PositionalEncoding::Rotary));
    settle();
    EXPECT_EQ(document()->result()->config.positional, PositionalEncoding::Rotary);
    EXPECT_FALSE(document()->result()->attention.queryBeforeRotation.size() == 0);
    EXPECT_NE(document()->result()->attention.heads[0].attention, sinusoidal->attention.heads[0].attention);
    EXPECT_TRUE(inputs()->ropeBaseBox()->isVisible());
    const auto base10000 = document()->result();
    inputs()->ropeBaseBox()->setValue(500000.0);
    settle();
    EXPECT_EQ(document()->result()->config.conventions.ropeBase, 500000.0);
    EXPECT_NE(document()->result()->attention.heads[0].scores, base10000->attention.heads[0].scores);

    // A positional preset cannot read rotary positions: said at the weights' message.
    HeadPreset previous;
    previous.head = 0;
    previous.kind = HeadPresetKind::PreviousToken;
    document()->applyPreset(previous);
    settle();
    EXPECT_TRUE(controls()->weights()->message()->isVisible());
    EXPECT_TRUE(controls()->weights()->message()->text().contains(QStringLiteral("sinusoidal")));

    choose(inputs()->positionalBox(), static_cast<int>(PositionalEncoding::None));
    choose(inputs()->positionalBox(), static_cast<int>(PositionalEncoding::Sinusoidal));
    settle();
    EXPECT_FALSE(inputs()->ropeBaseBox()->isVisible());
    EXPECT_FALSE(controls()->weights()->message()->isVisible());
}

// A long-context model's rope_scaling has no control: the base's field names it, its tooltip
// says what it does, and the attention follows it.
TEST_F(LayerControlsTest, TheRotaryBaseSaysWhenTheModelStretchesItsFrequencies)
{
    inputs()->show();
    Config config = document()->result()->config;
    config.positional = PositionalEncoding::Rotary;
    config.conventions.ropeBase = 500000.0;
    document()->edit(config, QStringLiteral("rotary"));
    settle();
    const auto plain = document()->result();
    EXPECT_EQ(inputs()->ropeBaseBox()->suffix(), QString());
    config.conventions.ropeScaling = {RopeScalingKind::Llama3, 8.0, 1.0, 4.0, 4.0};
    document()->edit(config, QStringLiteral("scaled"));
    settle();
    EXPECT_EQ(inputs()->ropeBaseBox()->suffix(), QStringLiteral(" · llama3 ×8"));
    EXPECT_TRUE(inputs()->ropeBaseBox()->toolTip().contains(QStringLiteral("rope_scaling (llama3)")))
        << inputs()->ropeBaseBox()->toolTip().toStdString();
    EXPECT_NE(document()->result()->attention.heads[0].scores, plain->attention.heads[0].scores);
    config.conventions.ropeScaling = {};
    document()->edit(config, QStringLiteral("unscaled"));
    settle();
    EXPECT_EQ(inputs()->ropeBaseBox()->suffix(), QString());
    EXPECT_EQ(document()->result()->attention.heads[0].scores, plain->attention.heads[0].scores);
}

// Causal mode's sliding window: shown only there, it masks the older keys, and Undo takes it back.
TEST_F(LayerControlsTest, TheSlidingWindowMasksOlderKeysInCausalMode)
{
    controls()->show();
    EXPECT_FALSE(controls()->slidingWindowBox()->isVisible()) << "self-attention has no window";
    Config config = document()->result()->config;
    config.targetText = "the cat sat on the mat";
    document()->edit(config, QStringLiteral("six words"));
    const int selfWidth = controls()->minimumSizeHint().width();
    choose(controls()->modeBox(), static_cast<int>(AttentionMode::DecoderCausal));
    settle();
    ASSERT_TRUE(controls()->slidingWindowBox()->isVisible());
    // The row fits the panel's narrowest width (a long "off" text once widened it past a
    // 1000 x 700 window's panel, cutting every field at its right edge).
    EXPECT_LE(controls()->minimumSizeHint().width(), selfWidth);
    EXPECT_EQ(controls()->slidingWindowBox()->value(), 0);
    type(controls()->slidingWindowBox(), "2");
    settle();
    const auto windowed = document()->result();
    EXPECT_EQ(windowed->config.conventions.slidingWindow, 2);
    EXPECT_EQ(windowed->attention.mask.window, 2);
    ASSERT_GE(windowed->attention.queryCount(), 4);
    EXPECT_EQ(windowed->attention.heads[0].attention.row(3).head(2).cwiseAbs().maxCoeff(), 0.0f);
    EXPECT_GT(windowed->attention.heads[0].attention.row(3).segment(2, 2).sum(), 0.99f);
    document()->undoStack()->undo();
    settle();
    EXPECT_EQ(document()->result()->config.conventions.slidingWindow, 0);
    EXPECT_EQ(controls()->slidingWindowBox()->value(), 0);
}

TEST_F(LayerControlsTest, EmbeddingsAndTheTokenScaleDriveTheComputation)
{
    inputs()->show();
    choose(inputs()->positionalBox(), static_cast<int>(PositionalEncoding::None));  // X is the embedding alone
    settle();
    const MatrixF paper = document()->result()->queryInput;
    EXPECT_FALSE(inputs()->paperScaleButton()->isVisible());
    inputs()->tokenScaleBox()->setValue(0.5);
    settle();
    EXPECT_EQ(document()->result()->queryInput, MatrixF(0.5f * paper));
    EXPECT_TRUE(inputs()->paperScaleButton()->isVisible());
    EXPECT_TRUE(inputs()->tokenScaleNote()->text().contains(QStringLiteral("paper uses 1")));
    inputs()->paperScaleButton()->click();
    settle();
    EXPECT_EQ(document()->config().tokenEmbeddingScale, 1.0f);
    EXPECT_EQ(document()->result()->queryInput, paper);
    EXPECT_FALSE(inputs()->paperScaleButton()->isVisible());

    type(inputs()->tokenScaleBox(), "0");
    settle();
    EXPECT_TRUE(inputs()->embeddingsMessage()->isVisible());
    EXPECT_EQ(document()->result()->queryInput, paper);  // the last valid result stays
    inputs()->tokenScaleBox()->setValue(1.0);

    choose(inputs()->embeddingsBox(), static_cast<int>(EmbeddingKind::Meaning));
    settle();
    EXPECT_EQ(document()->result()->config.embeddings, EmbeddingKind::Meaning);
    document()->undoStack()->undo();
    settle();
    EXPECT_EQ(inputs()->embeddingsBox()->currentData().toInt(), static_cast<int>(EmbeddingKind::Word));
}

TEST_F(LayerControlsTest, APositionalPresetLowersTheTokenScaleAndSaysWhy)
{
    inputs()->show();
    HeadPreset same;
    same.head = 1;
    same.kind = HeadPresetKind::SamePosition;
    document()->applyPreset(same);
    settle();
    EXPECT_NEAR(inputs()->tokenScaleBox()->value(), positionalPresetTokenScale, 1e-6);
    EXPECT_TRUE(inputs()->paperScaleButton()->isVisible());
    EXPECT_TRUE(inputs()->tokenScaleNote()->text().contains(QStringLiteral("head 2")))
        << inputs()->tokenScaleNote()->text().toStdString();
    const QString origin = controls()->weights()->originLabel()->text();
    EXPECT_TRUE(origin.contains(QStringLiteral("head 2 same position"))) << origin.toStdString();
    EXPECT_TRUE(origin.contains(QStringLiteral("scaled by 0.03"))) << origin.toStdString();
}

TEST_F(LayerControlsTest, DModelBeyondItsLimitIsSaidAtTheFieldNotClamped)
{
    QSpinBox* dModel = controls()->dModelBox();
    for (const char* typed : {"5000", "99999999", "0"}) {
        SCOPED_TRACE(typed);
        type(dModel, typed);
        settle();
        EXPECT_EQ(dModel->text(), QString::fromLatin1(typed));  // not silently cut to 500 or 999
        EXPECT_EQ(document()->config().d_model, QString::fromLatin1(typed).toLongLong());
        EXPECT_TRUE(controls()->dModelMessage()->isVisible());
        EXPECT_TRUE(controls()->dModelMessage()->text().contains(QStringLiteral("4096")))
            << controls()->dModelMessage()->text().toStdString();
        // Never computed (keystrokes on the way, such as 500, may have been).
        EXPECT_LE(document()->result()->config.d_model, 4096);
    }
    type(controls()->headsBox(), "300");
    settle();
    EXPECT_TRUE(controls()->headsMessage()->text().contains(QStringLiteral("256")));
    type(dModel, "64");
    type(controls()->headsBox(), "4");
    settle();
    EXPECT_FALSE(controls()->dModelMessage()->isVisible());
    EXPECT_FALSE(controls()->headsMessage()->isVisible());
}

TEST_F(LayerControlsTest, TheSeedAndInitSayWhenTheyDoNotApply)
{
    WeightsGroup* weights = controls()->weights();
    weights->show();
    EXPECT_TRUE(weights->originLabel()->text().contains(QStringLiteral("seed 3")))
        << weights->originLabel()->text().toStdString();
    EXPECT_FALSE(weights->seedNote()->isVisible());
    EXPECT_FALSE(weights->initNote()->isVisible());
    document()->setWeights(
        std::make_shared<const AttentionWeights>(initialiseWeights(64, 8, WeightInit::Normal, false)),
        QStringLiteral("/somewhere/layer.safetensors"));
    settle();
    EXPECT_TRUE(weights->originLabel()->text().contains(QStringLiteral("layer.safetensors")));
    EXPECT_TRUE(weights->seedNote()->isVisible());
    EXPECT_TRUE(weights->seedNote()->text().contains(QStringLiteral("embeddings only")));
    EXPECT_TRUE(weights->initNote()->isVisible());
    EXPECT_FALSE(weights->biasBox()->isEnabled());
}

}  // namespace
}  // namespace qkv::ui::testing
