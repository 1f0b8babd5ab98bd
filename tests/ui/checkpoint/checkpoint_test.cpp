// File > Open Checkpoint: the layer dialog lists what core recognised and
// asks for h when no config.json says it; using a layer sets what the model fixes as one undo
// step; a layer that cannot be read changes nothing.

#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QUndoStack>

#include <optional>

#include <QComboBox>
#include <QStandardItemModel>
#include <QStatusBar>

#include "core/checkpoint/checkpoint.hpp"
#include "core/common/limits.hpp"
#include "core/families/attention_rules.hpp"
#include "core/io/npy.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/checkpoint/checkpoint_layer_dialog.hpp"
#include "ui/controls/controls_panel.hpp"
#include "ui/controls/field_message.hpp"
#include "ui/controls/inputs_group.hpp"
#include "ui/controls/sentence_field.hpp"
#include "ui/controls/token_chips.hpp"
#include "ui/mainwindow/status_summary.hpp"
#include "support/test_paths.hpp"

namespace qkv::ui::testing {
namespace {

std::string fixture(const char* family)
{
    return std::string(qkv::testDataDir()) + "/checkpoint/" + family + "/model.safetensors";
}

Checkpoint openOrFail(const std::string& path, CheckpointOptions options = {})
{
    Expected<Checkpoint> checkpoint = openCheckpoint(path, options);
    EXPECT_TRUE(checkpoint.ok()) << (checkpoint.ok() ? std::string() : checkpoint.error());
    return checkpoint.ok() ? std::move(checkpoint).value() : Checkpoint{};
}

// The model is named as its config.json's model_type says, and a model with sliding layers marks
// each layer's window (core's layerWindowLabel): Gemma 2's even blocks slide, its odd ones are
// global; a model without sliding layers has no window column to read.
TEST(CheckpointLayerDialog, NamesTheModelAndMarksSlidingAndGlobalLayers)
{
    const Checkpoint gemma = openOrFail(std::string(qkv::testDataDir()) + "/pretrained/gemma2");
    ASSERT_EQ(gemma.layers.size(), 4u);
    CheckpointLayerDialog dialog(gemma);
    const QTableWidget* table = dialog.table();
    ASSERT_EQ(table->columnCount(), 8);
    EXPECT_EQ(table->horizontalHeaderItem(6)->text(), QStringLiteral("Model"));
    EXPECT_EQ(table->horizontalHeaderItem(7)->text(), QStringLiteral("Window"));
    EXPECT_FALSE(table->isColumnHidden(7));
    for (int row = 0; row < 4; ++row) {
        EXPECT_EQ(table->item(row, 6)->text(), QStringLiteral("Gemma 2")) << row;
        const Index block = blockNumberOf(gemma.layers[static_cast<std::size_t>(row)].name);
        EXPECT_EQ(table->item(row, 7)->text(), block % 2 == 0 ? QStringLiteral("sliding 4") : QStringLiteral("global"))
            << gemma.layers[static_cast<std::size_t>(row)].name;
    }
    const Checkpoint mistral = openOrFail(std::string(qkv::testDataDir()) + "/pretrained/mistral");
    CheckpointLayerDialog mistralDialog(mistral);
    ASSERT_GT(mistralDialog.table()->rowCount(), 0);
    EXPECT_EQ(mistralDialog.table()->item(0, 6)->text(), QStringLiteral("Mistral")) << "not the row's LLaMA-style";
    EXPECT_EQ(mistralDialog.table()->item(0, 7)->text(), QStringLiteral("sliding 4"));
    const Checkpoint qwen = openOrFail(std::string(qkv::testDataDir()) + "/pretrained/qwen3");
    CheckpointLayerDialog qwenDialog(qwen);
    ASSERT_GT(qwenDialog.table()->rowCount(), 0);
    EXPECT_EQ(qwenDialog.table()->item(0, 6)->text(), QStringLiteral("Qwen3"));
    EXPECT_TRUE(qwenDialog.table()->isColumnHidden(7)) << "every layer global: nothing to tell apart";
}

TEST(CheckpointLayerDialog, ListsEveryRecognisedLayerWithItsKindAndShape)
{
    const Checkpoint bart = openOrFail(fixture("bart"));
    ASSERT_FALSE(bart.layers.empty());
    CheckpointLayerDialog dialog(bart);
    EXPECT_EQ(dialog.headCountBox(), nullptr);  // config.json gives h
    ASSERT_EQ(dialog.table()->rowCount(), static_cast<int>(bart.layers.size()));
    bool sawCross = false;
    for (int row = 0; row < dialog.table()->rowCount(); ++row) {
        const CheckpointLayer& layer = bart.layers[static_cast<std::size_t>(row)];
        EXPECT_EQ(dialog.table()->item(row, 1)->text().toStdString(), layer.name);
        EXPECT_EQ(dialog.table()->item(row, 2)->text().toStdString(), std::string(modeName(layer.kind)));
        EXPECT_EQ(dialog.table()->item(row, 3)->text().toLongLong(), layer.headCount);
        EXPECT_EQ(dialog.table()->item(row, 5)->text().toLongLong(), layer.d_model);
        sawCross = sawCross || layer.name.find("encoder_attn") != std::string::npos;
    }
    EXPECT_TRUE(sawCross);
    dialog.selectLayer(1);
    ASSERT_TRUE(dialog.selectedLayer().has_value());
    EXPECT_EQ(dialog.selectedLayer()->name, bart.layers[1].name);
}

TEST(CheckpointLayerDialog, WithoutConfigItAsksForHAndListsTheLayersAgain)
{
    QTemporaryDir directory;
    const QString copy = directory.filePath(QStringLiteral("model.safetensors"));
    ASSERT_TRUE(QFile::copy(QString::fromStdString(fixture("bert")), copy));  // no config.json beside it
    CheckpointLayerDialog dialog(openOrFail(copy.toStdString()));
    ASSERT_NE(dialog.headCountBox(), nullptr);
    const int d_model = dialog.table()->item(0, 5)->text().toInt();
    const int other = dialog.headCountBox()->value() == 4 ? 2 : 4;
    ASSERT_EQ(d_model % other, 0);
    dialog.headCountBox()->setValue(other);
    emit dialog.headCountBox()->editingFinished();
    EXPECT_EQ(dialog.table()->item(0, 3)->text().toInt(), other);
    EXPECT_EQ(dialog.checkpoint().layers.front().headCount, other);
    // h that does not divide d_model: the message says why and the list stays as it was.
    dialog.headCountBox()->setValue(d_model + 1);
    emit dialog.headCountBox()->editingFinished();
    EXPECT_EQ(dialog.table()->item(0, 3)->text().toInt(), other);
    EXPECT_TRUE(dialog.messageLabel()->text().contains(QStringLiteral("does not divide")))
        << dialog.messageLabel()->text().toStdString();
}

// The head box offers what validation accepts: 1 to limits::maxHeads, and its tip says so.
TEST(CheckpointLayerDialog, TheHeadBoxOffersTheHeadLimit)
{
    QTemporaryDir directory;
    const QString copy = directory.filePath(QStringLiteral("model.safetensors"));
    ASSERT_TRUE(QFile::copy(QString::fromStdString(fixture("bert")), copy));  // no config.json beside it
    CheckpointLayerDialog dialog(openOrFail(copy.toStdString()));
    ASSERT_NE(dialog.headCountBox(), nullptr);
    EXPECT_EQ(dialog.headCountBox()->minimum(), 1);
    EXPECT_EQ(dialog.headCountBox()->maximum(), limits::maxHeads);
    EXPECT_TRUE(dialog.headCountBox()->toolTip().contains(QString::number(limits::maxHeads)))
        << dialog.headCountBox()->toolTip().toStdString();
}

// The Positions choice: config.json fixes a LLaMA-style layer's positions, so the choice is
// disabled and says why; BERT's file fixes none, so the usual sinusoidal stand-in is offered.
TEST(CheckpointLayerDialog, PositionsTheCheckpointFixesAreDisabledWithTheReason)
{
    CheckpointLayerDialog llama(openOrFail(fixture("llama")));
    ASSERT_NE(llama.positionsBox(), nullptr);
    EXPECT_FALSE(llama.positionsBox()->isEnabled());
    EXPECT_EQ(llama.chosenPositions(), PositionalEncoding::Rotary);
    EXPECT_EQ(llama.positionsNote()->text(), QStringLiteral("config.json sets rotary positions."));

    CheckpointLayerDialog bert(openOrFail(fixture("bert")));
    EXPECT_TRUE(bert.positionsBox()->isEnabled());
    EXPECT_EQ(bert.chosenPositions(), PositionalEncoding::Sinusoidal);
    EXPECT_TRUE(bert.positionsNote()->text().contains(QStringLiteral("does not fix")))
        << bert.positionsNote()->text().toStdString();
    // GPT-2 and BERT learn their positions: the note says sinusoidal ones only stand in for them
    // (it called them "the usual one for GPT-2").
    CheckpointLayerDialog gpt2(openOrFail(fixture("gpt2")));
    EXPECT_EQ(gpt2.chosenPositions(), PositionalEncoding::Sinusoidal);
    for (const CheckpointLayerDialog* dialog : {&bert, &gpt2}) {
        const QString note = dialog->positionsNote()->text();
        EXPECT_TRUE(note.contains(QStringLiteral("stands in for the model's learned position embeddings")))
            << note.toStdString();
        EXPECT_FALSE(note.contains(QStringLiteral("usual"))) << note.toStdString();
    }
}

// A first layer that reads the model's own input (GPT-2 and BERT with their tokenizer files):
// its own learned positions are offered, preselected and named; choosing them adds nothing to X.
TEST(CheckpointLayerDialog, TheModelsOwnLearnedPositionsArePreselectedWhereItsInputIsThere)
{
    for (const char* name : {"gpt2_input", "bert_input"}) {
        SCOPED_TRACE(name);
        CheckpointLayerDialog dialog(openOrFail(fixture(name)));
        ASSERT_TRUE(dialog.selectedLayer().has_value());
        EXPECT_TRUE(dialog.positionsBox()->isEnabled());
        EXPECT_EQ(dialog.positionsBox()->currentText(), QStringLiteral("Learned: the model's own"));
        EXPECT_EQ(dialog.chosenPositions(), std::nullopt);
        EXPECT_TRUE(dialog.positionsNote()->text().contains(QStringLiteral("the model's own learned positions")))
            << dialog.positionsNote()->text().toStdString();
    }
    // Without the tokenizer files there is no own input: the choice is not offered.
    CheckpointLayerDialog plain(openOrFail(fixture("gpt2")));
    EXPECT_LT(plain.positionsBox()->findText(QStringLiteral("Learned: the model's own")), 0);
}

class CheckpointWindowTest : public WindowTest {
protected:
    // Loads `layer` through the window as the dialog's "Use This Layer" does; returns the error.
    QString use(const Checkpoint& checkpoint, const CheckpointLayer& layer,
                std::optional<PositionalEncoding> positions = std::nullopt)
    {
        QSignalSpy loaded(window.get(), &MainWindow::checkpointLayerLoaded);
        window->loadCheckpointLayer(checkpoint, layer, positions);
        EXPECT_TRUE(loaded.wait(10000));
        settle();
        return loaded.isEmpty() ? QStringLiteral("no signal") : loaded.front().front().toString();
    }
};

TEST_F(CheckpointWindowTest, AGpt2LayerBecomesACausalLayerOfItsShapeAsOneUndoStep)
{
    const Checkpoint gpt2 = openOrFail(fixture("gpt2"));
    const Expected<CheckpointLayer> layer = findCheckpointLayer(gpt2, "h.1.attn");
    ASSERT_TRUE(layer.ok());
    const Config before = window->document()->config();
    const int steps = window->document()->undoStack()->count();
    EXPECT_EQ(use(gpt2, *layer), QString());
    const Config& after = window->document()->config();
    EXPECT_EQ(after.mode, AttentionMode::DecoderCausal);
    EXPECT_EQ(after.d_model, layer->d_model);
    EXPECT_EQ(after.headCount, layer->headCount);
    EXPECT_TRUE(after.withBias);
    EXPECT_EQ(window->document()->session().weightsProvenance.layer, "h.1.attn");
    ASSERT_TRUE(window->document()->isValid());
    EXPECT_EQ(window->document()->result()->attention.headCount(), layer->headCount);
    EXPECT_EQ(window->document()->undoStack()->count(), steps + 1);
    window->document()->undoStack()->undo();
    settle();
    EXPECT_EQ(window->document()->config(), before);
}

TEST_F(CheckpointWindowTest, ALlamaLayerBringsGroupedQueryHeadsAndRotaryPositions)
{
    const Checkpoint llama = openOrFail(fixture("llama"));
    ASSERT_FALSE(llama.layers.empty());
    const CheckpointLayer& layer = llama.layers.back();
    EXPECT_EQ(use(llama, layer), QString());
    const Config& config = window->document()->config();
    EXPECT_EQ(config.positional, PositionalEncoding::Rotary);
    EXPECT_EQ(config.g(), layer.keyValueHeadCount);
    EXPECT_LT(config.g(), config.headCount);
    EXPECT_TRUE(window->document()->isValid());
}

// Without config.json a LLaMA-style layer's rotary positions are only the family's habit: the
// dialog preselects them, and what the user picks instead is what the layer computes with.
TEST_F(CheckpointWindowTest, PositionsChosenInTheDialogAreUsedWhereTheCheckpointLeavesThemOpen)
{
    QTemporaryDir directory;
    const QString copy = directory.filePath(QStringLiteral("model.safetensors"));
    ASSERT_TRUE(QFile::copy(QString::fromStdString(fixture("llama")), copy));  // no config.json beside it
    CheckpointLayerDialog dialog(openOrFail(copy.toStdString(), {4}));
    ASSERT_TRUE(dialog.positionsBox()->isEnabled());
    EXPECT_EQ(dialog.chosenPositions(), PositionalEncoding::Rotary);
    dialog.positionsBox()->setCurrentIndex(
        dialog.positionsBox()->findData(static_cast<int>(PositionalEncoding::RotaryInterleaved)));
    // Asking for another h lists the layers again; the choice stays.
    dialog.headCountBox()->setValue(2);
    emit dialog.headCountBox()->editingFinished();
    dialog.headCountBox()->setValue(4);
    emit dialog.headCountBox()->editingFinished();
    EXPECT_EQ(dialog.chosenPositions(), PositionalEncoding::RotaryInterleaved);

    dialog.selectLayer(1);
    ASSERT_TRUE(dialog.selectedLayer().has_value());
    EXPECT_EQ(use(dialog.checkpoint(), *dialog.selectedLayer(), dialog.chosenPositions()), QString());
    EXPECT_EQ(window->document()->config().positional, PositionalEncoding::RotaryInterleaved);
    EXPECT_EQ(window->document()->config().headCount, 4);
    EXPECT_TRUE(window->document()->isValid());

    // With config.json the same choice cannot replace the rotary positions it fixes.
    const Checkpoint withConfig = openOrFail(fixture("llama"));
    QSignalSpy notices(window->document(), &Document::notice);
    EXPECT_EQ(use(withConfig, withConfig.layers.back(), PositionalEncoding::None), QString());
    EXPECT_EQ(window->document()->config().positional, PositionalEncoding::Rotary);
    ASSERT_FALSE(notices.isEmpty());
    const QString notice = notices.back().front().toString();
    EXPECT_TRUE(
        notice.contains(QStringLiteral("config.json sets rotary positions; the Positions choice “none” was not used.")))
        << notice.toStdString();
}

// Stop beside the status line drops a layer request whose model is being read: no answer comes,
// the document is as it was, and the status line says so and counts no more blocks.
TEST_F(CheckpointWindowTest, StoppingWhileTheModelIsReadLeavesTheDocumentAsItWas)
{
    const Checkpoint bert = openOrFail(std::string(qkv::testDataDir()) + "/pretrained/bert");
    const Config before = window->document()->config();
    const int steps = window->document()->undoStack()->count();
    auto* stop = window->findChild<QToolButton*>(QStringLiteral("stopModelLoad"));
    ASSERT_NE(stop, nullptr);
    QSignalSpy loaded(window.get(), &MainWindow::checkpointLayerLoaded);
    window->loadCheckpointLayer(bert, bert.layers.back(), std::nullopt);
    stop->click();
    QTest::qWait(500);
    settle();
    EXPECT_TRUE(loaded.isEmpty()) << "a stopped request is never answered";
    EXPECT_EQ(window->document()->config(), before);
    EXPECT_EQ(window->document()->undoStack()->count(), steps);
    EXPECT_FALSE(stop->isVisible());
    EXPECT_TRUE(window->statusBar()->currentMessage().contains(QStringLiteral("Stopped reading the model")))
        << window->statusBar()->currentMessage().toStdString();
    // The next request is read as if nothing had happened.
    EXPECT_EQ(use(bert, bert.layers.back()), QString());
}

TEST(StatusSummaryTest, AModelBeingReadIsCountedInBlocks)
{
    StatusSummary status;
    status.setLoading(true);
    EXPECT_TRUE(status.text().contains(QStringLiteral("reading a file"))) << status.text().toStdString();
    status.setModelLoad(3, 16);
    EXPECT_TRUE(status.text().contains(QStringLiteral("reading the model: block 3 of 16"))) << status.text().toStdString();
    status.setModelLoad(0, 0);
    status.setLoading(false);
    EXPECT_FALSE(status.text().contains(QStringLiteral("reading"))) << status.text().toStdString();
}

TEST_F(CheckpointWindowTest, ALayerThatCannotBeReadChangesNothing)
{
    QTemporaryDir directory;
    const QString copy = directory.filePath(QStringLiteral("model.safetensors"));
    ASSERT_TRUE(QFile::copy(QString::fromStdString(fixture("gpt2")), copy));
    const Checkpoint gpt2 = openOrFail(copy.toStdString(), {4});
    ASSERT_FALSE(gpt2.layers.empty());
    ASSERT_TRUE(QFile::remove(copy));  // gone between listing and loading
    const Config before = window->document()->config();
    const int steps = window->document()->undoStack()->count();
    const QString error = use(gpt2, gpt2.layers.front());
    EXPECT_FALSE(error.isEmpty());
    EXPECT_TRUE(error.contains(QStringLiteral("model.safetensors"))) << error.toStdString();
    EXPECT_EQ(window->document()->config(), before);
    EXPECT_EQ(window->document()->undoStack()->count(), steps);
}

// BERT's first layer reads the model's own input; the chips, the labels
// and the embeddings box follow; a second layer of a model that cannot run whole keeps generated
// embeddings and says why.
TEST_F(CheckpointWindowTest, TheFirstLayerReadsTheModelsOwnInputAndTheChipsShowSubwords)
{
    const Checkpoint bert = openOrFail(fixture("bert_input"));
    ASSERT_EQ(bert.layers.size(), 2u);
    Config config = window->document()->config();
    config.sourceText = "The cat sat on the mat, playing.";
    setConfig(config);
    QSignalSpy notices(window->document(), &Document::notice);
    EXPECT_EQ(use(bert, bert.layers.front()), QString());
    const Session& session = window->document()->session();
    EXPECT_EQ(session.config.embeddings, EmbeddingKind::Model);
    ASSERT_TRUE(session.modelInput);
    ASSERT_TRUE(window->document()->isValid());
    const std::vector<std::string> pieces = {"[CLS]", "the", "cat",  "sat",   "on", "the",
                                             "mat",   ",",   "play", "##ing", ".",  "[SEP]"};
    EXPECT_EQ(window->document()->result()->queryLabels, pieces);
    const QStringList chips = window->controls()->sourceField()->chips()->tokens();
    ASSERT_EQ(chips.size(), static_cast<int>(pieces.size()));
    EXPECT_EQ(chips.front(), QStringLiteral("[CLS]"));
    EXPECT_EQ(chips.at(9), QStringLiteral("##ing"));
    ASSERT_FALSE(notices.isEmpty());
    EXPECT_TRUE(notices.back().front().toString().contains(QStringLiteral("own input")))
        << notices.back().front().toString().toStdString();
    QComboBox* box = window->controls()->inputs()->embeddingsBox();
    EXPECT_EQ(box->currentData().toInt(), static_cast<int>(EmbeddingKind::Model));
    EXPECT_FALSE(window->controls()->inputs()->tokenScaleBox()->isEnabled());
    EXPECT_TRUE(window->controls()->inputs()->positionalNote()->text().contains(QStringLiteral("learned positions")));

    // Typing keeps going through the model's tokenizer.
    config = window->document()->config();
    config.sourceText = "hello world";
    window->document()->edit(config, QStringLiteral("type"));
    settle();
    EXPECT_EQ(window->controls()->sourceField()->chips()->tokens(),
              (QStringList{QStringLiteral("[CLS]"), QStringLiteral("hello"), QStringLiteral("world"),
                           QStringLiteral("[SEP]")}));

    // Longer than the model's 24 positions: said under the sentence, where the user types.
    config.sourceText = "the cat sat on the mat the cat sat on the mat the cat sat on the mat the cat sat on it";
    window->document()->edit(config, QStringLiteral("type"));
    settle();
    EXPECT_FALSE(window->document()->isValid());
    EXPECT_TRUE(window->controls()->sourceField()->message()->isVisible());
    EXPECT_TRUE(window->controls()->sourceField()->message()->text().contains(QStringLiteral("positions go up to 24")))
        << window->controls()->sourceField()->message()->text().toStdString();
    config.sourceText = "hello world";
    window->document()->edit(config, QStringLiteral("type"));
    settle();
    EXPECT_TRUE(window->document()->isValid());

    // The second layer reads what the first computed, and this file holds attention layers
    // only (no MLP to run): generated embeddings, and the reason.
    EXPECT_EQ(use(bert, bert.layers.back()), QString());
    EXPECT_EQ(window->document()->config().embeddings, EmbeddingKind::Word);
    EXPECT_FALSE(window->document()->session().modelInput);
    EXPECT_TRUE(notices.back().front().toString().contains(QStringLiteral("cannot run whole")))
        << notices.back().front().toString().toStdString();
    auto* items = qobject_cast<QStandardItemModel*>(box->model());
    ASSERT_NE(items, nullptr);
    EXPECT_FALSE(items->item(box->findData(static_cast<int>(EmbeddingKind::Model)))->isEnabled());
    EXPECT_EQ(window->controls()->sourceField()->chips()->tokens(),
              (QStringList{QStringLiteral("hello"), QStringLiteral("world")}));

    // Undo returns to the first layer with its own input.
    window->document()->undoStack()->undo();
    settle();
    EXPECT_EQ(window->document()->config().embeddings, EmbeddingKind::Model);
    EXPECT_TRUE(window->document()->session().modelInput);
}

// A later layer of a model that runs whole reads the hidden states the layers before it
// computed: the document's result is that layer of the model's run, as PyTorch computes it
// (tests/data/pretrained/make_pretrained_fixtures.py; its ids are this sentence's).
TEST_F(CheckpointWindowTest, ALaterLayerOfAWholeModelReadsTheLayersBelowIt)
{
    const Checkpoint bert = openOrFail(std::string(qkv::testDataDir()) + "/pretrained/bert");
    ASSERT_EQ(bert.layers.size(), 3u);
    Config config = window->document()->config();
    config.sourceText = "d [MASK] super / [MASK]";
    setConfig(config);
    QSignalSpy notices(window->document(), &Document::notice);
    EXPECT_EQ(use(bert, bert.layers.back()), QString());
    const Session& session = window->document()->session();
    EXPECT_EQ(session.config.embeddings, EmbeddingKind::Model);
    ASSERT_TRUE(session.modelInput);
    ASSERT_TRUE(window->document()->isValid());
    ASSERT_FALSE(notices.isEmpty());
    EXPECT_TRUE(notices.back().front().toString().contains(QStringLiteral("layers before")))
        << notices.back().front().toString().toStdString();
    const auto result = window->document()->result();
    ASSERT_TRUE(result);
    EXPECT_EQ(result->queryLabels,
              (std::vector<std::string>{"[CLS]", "d", "[MASK]", "super", "/", "[MASK]", "[SEP]"}));
    Expected<MatrixF> expected = readNpyMatrix(std::string(qkv::testDataDir()) + "/pretrained/bert/attention_2.npy");
    ASSERT_TRUE(expected) << expected.error();
    const Index n = 7;
    ASSERT_EQ(expected->rows(), 4 * n);
    for (Index head = 0; head < 4; ++head)
        EXPECT_LT((result->attention.heads[static_cast<std::size_t>(head)].attention -
                   expected->middleRows(head * n, n))
                      .cwiseAbs()
                      .maxCoeff(),
                  1e-4)
            << "head " << head + 1;
}

}  // namespace
}  // namespace qkv::ui::testing
