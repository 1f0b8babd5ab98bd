// File > Open Model…: the Hugging Face cache's models listed off the GUI thread, one that cannot be
// read greyed with its reason, the last one opened first, and the chosen one opening its layers.

#include <QAction>
#include <QApplication>
#include <QPlainTextEdit>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>

#include <filesystem>
#include <fstream>
#include <vector>

#include "support/test_paths.hpp"
#include "tests/ui/support/wait_until.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/checkpoint/checkpoint_layer_dialog.hpp"
#include "ui/checkpoint/model_list_dialog.hpp"
#include "ui/controls/controls_panel.hpp"
#include "ui/controls/sentence_field.hpp"
#include "ui/document/document.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/views/result_view.hpp"

namespace qkv::ui::testing {
namespace {

namespace fs = std::filesystem;

// A cache as huggingface_hub writes it: a fixture model (GPT-2 with vocab.json and merges.txt, or
// LLaMA with only a tokenizer.json) as links into blobs/, and a model whose only weights are a pickle.
class CacheFolder {
public:
    explicit CacheFolder(const std::string& model = "gpt2")
    {
        const fs::path hub(dir_.path().toStdString());
        const fs::path repo = hub / ("models--tiny--" + model);
        snapshot_ = repo / "snapshots" / "c0ffee";
        fs::create_directories(repo / "blobs");
        fs::create_directories(snapshot_);
        fs::create_directories(repo / "refs");
        const std::vector<std::string> files =
            model == "llama" ? std::vector<std::string>{"llama/config.json", "llama/model.safetensors",
                                                        "llama_text/tokenizer.json", "llama_text/tokenizer_config.json"}
                             : std::vector<std::string>{"gpt2/config.json", "gpt2/model.safetensors", "gpt2/vocab.json",
                                                        "gpt2/merges.txt"};
        int blob = 0;
        for (const std::string& file : files) {
            const std::string hash = "b" + std::to_string(blob++);
            fs::copy_file(fs::path(qkv::testDataDir()) / "pretrained" / file, repo / "blobs" / hash);
            fs::create_symlink(fs::path("..") / ".." / "blobs" / hash, snapshot_ / fs::path(file).filename());
        }
        std::ofstream(repo / "refs" / "main") << "c0ffee";
        const fs::path pickled = hub / "models--old--pickled" / "snapshots" / "c1";
        fs::create_directories(pickled);
        std::ofstream(pickled / "pytorch_model.bin") << "pickle";
    }
    QString path() const { return dir_.path(); }
    QString snapshot() const { return QString::fromStdString(snapshot_.string()); }

private:
    QTemporaryDir dir_;
    fs::path snapshot_;
};

TEST(ModelListDialogTest, ListsTheCachesModelsWithWhyOneCannotBeRead)
{
    const CacheFolder cache;
    ModelListDialog dialog(cache.path(), QString());
    ASSERT_TRUE(waitUntil([&] { return !dialog.isListing() && dialog.table()->rowCount() > 0; }));
    QTableWidget* table = dialog.table();
    ASSERT_EQ(table->rowCount(), 2);
    EXPECT_EQ(table->item(0, 0)->text(), QStringLiteral("old/pickled"));
    EXPECT_FALSE(table->item(0, 0)->flags() & Qt::ItemIsEnabled);  // greyed: it cannot be read
    EXPECT_TRUE(table->item(0, ModelListDialog::Status)->text().contains(QStringLiteral("never loads pickles"))) << table->item(0, ModelListDialog::Status)->text().toStdString();
    EXPECT_EQ(table->item(1, 0)->text(), QStringLiteral("tiny/gpt2"));
    EXPECT_EQ(table->item(1, ModelListDialog::Family)->text(), QStringLiteral("gpt2"));
    EXPECT_EQ(table->item(1, ModelListDialog::Source)->text(), QStringLiteral("Hugging Face cache"));
    EXPECT_TRUE(table->item(1, ModelListDialog::Memory)->text().endsWith(QStringLiteral("whole")));
    EXPECT_EQ(table->item(1, ModelListDialog::Layers)->text(), QStringLiteral("3"));
    EXPECT_EQ(table->item(1, ModelListDialog::StoredAs)->text(), QStringLiteral("mostly F32"));  // and its BOOL causal masks
    EXPECT_EQ(table->item(1, ModelListDialog::Status)->text(), QStringLiteral("yes"));
    // The first model that can be read is selected; Open takes its snapshot.
    EXPECT_EQ(table->currentRow(), 1);
    QMetaObject::invokeMethod(&dialog, [&] { emit dialog.findChild<QDialogButtonBox*>()->accepted(); });
    ASSERT_TRUE(waitUntil([&] { return dialog.result() == QDialog::Accepted; }));
    EXPECT_EQ(dialog.chosenFolder(), cache.snapshot());

    // The last model opened comes first.
    ModelListDialog again(cache.path(), cache.snapshot());
    ASSERT_TRUE(waitUntil([&] { return !again.isListing() && again.table()->rowCount() == 2; }));
    EXPECT_EQ(again.table()->item(0, 0)->text(), QStringLiteral("tiny/gpt2"));
}

TEST(ModelListDialogTest, NoCacheSaysSoAndOffersAnotherFolder)
{
    ModelListDialog dialog(QStringLiteral("/nonexistent/huggingface/hub"), QString());
    ASSERT_TRUE(waitUntil([&] { return !dialog.isListing() && dialog.messageLabel()->text().contains(QStringLiteral("Other Folder")); }));
    EXPECT_EQ(dialog.table()->rowCount(), 0);
    EXPECT_TRUE(dialog.messageLabel()->text().contains(QStringLiteral("no Hugging Face cache"))) << dialog.messageLabel()->text().toStdString();
}

// Opens the cache's row `row` and its first layer, answering the two dialogs as a user would.
void openFromCache(MainWindow& window, const CacheFolder& cache, int row)
{
    const QByteArray before = qgetenv("HF_HUB_CACHE"), ollamaBefore = qgetenv("OLLAMA_MODELS");
    qputenv("HF_HUB_CACHE", cache.path().toLocal8Bit());
    qputenv("OLLAMA_MODELS", (cache.path() + QStringLiteral("/no-ollama")).toLocal8Bit());  // none but the cache's
    bool listAnswered = false, layerAnswered = false;
    QTimer answer;
    QObject::connect(&answer, &QTimer::timeout, [&] {
        QWidget* modal = QApplication::activeModalWidget();
        if (auto* list = qobject_cast<ModelListDialog*>(modal); list && !list->isListing() && list->table()->rowCount() == 2) {
            list->selectRow(row);
            emit list->findChild<QDialogButtonBox*>()->accepted();
            listAnswered = true;
        } else if (auto* layers = qobject_cast<CheckpointLayerDialog*>(modal)) {
            layers->selectLayer(0);
            layers->accept();
            layerAnswered = true;
        }
    });
    answer.start(20);
    window.openModelInteractively();
    EXPECT_TRUE(listAnswered);
    EXPECT_TRUE(waitUntil([&] { return layerAnswered; }));
    EXPECT_TRUE(waitUntil([&] { return !window.document()->session().weightsProvenance.file.empty(); }));
    answer.stop();
    if (before.isNull()) qunsetenv("HF_HUB_CACHE");
    else qputenv("HF_HUB_CACHE", before);
    if (ollamaBefore.isNull()) qunsetenv("OLLAMA_MODELS");
    else qputenv("OLLAMA_MODELS", ollamaBefore);
}

// A LLaMA-style model whose only tokenizer file is tokenizer.json: typed text becomes its tokens,
// shown as a reader expects ("·cat", not "Ġcat").
TEST_F(WindowTest, AModelWithOnlyATokenizerJsonShowsTypedTextAsItsTokens)
{
    const CacheFolder cache("llama");
    openFromCache(*window, cache, 1);
    QPlainTextEdit* editor = window->controls()->targetField()->editor();
    editor->selectAll();
    editor->insertPlainText(QStringLiteral("The cat sat on a mat"));
    ASSERT_TRUE(waitUntil([&] {
        const auto result = window->document()->result();
        return !window->document()->isBusy() && result && result->config.targetText == "The cat sat on a mat";
    }));
    const std::vector<std::string> shown{"<|begin_of_text|>", "The", "\u00b7cat", "\u00b7sat", "\u00b7on", "\u00b7a",
                                         "\u00b7mat", "<|end_of_text|>"};
    EXPECT_EQ(window->document()->result()->queryLabels, shown);
    EXPECT_TRUE(window->document()->isValid());
}

// File > Examples > A Model That Learned Induction Heads: the demo model's layer 1 on its
// README's sentence, in the Model tab (which names the heads: model_grid_view_test.cpp).
TEST_F(WindowTest, TheDemoModelOpensItsInductionLayerOnItsSentenceInTheModelTab)
{
    QAction* demo = nullptr;
    for (QAction* action : window->findChildren<QAction*>())
        if (action->text() == QStringLiteral("A Model That Learned &Induction Heads")) demo = action;
    ASSERT_NE(demo, nullptr);
    demo->trigger();
    ASSERT_TRUE(waitUntil([&] {
        const auto result = window->document()->result();
        return !window->document()->isBusy() && result &&
               window->document()->session().weightsProvenance.layer == "transformer.h.1.attn" &&
               result->config.targetText == "a b c d e f g h a b c d e f g";
    }));
    const auto result = window->document()->result();
    EXPECT_EQ(result->config.mode, qkv::AttentionMode::DecoderCausal);
    ASSERT_EQ(result->queryLabels.size(), 15u);
    EXPECT_EQ(result->queryLabels[1], "\u00b7b");
    EXPECT_EQ(window->tabs()->currentWidget(), static_cast<QWidget*>(window->tabs()->view(QStringLiteral("model"))));
}

TEST_F(WindowTest, OpenModelOpensTheChosenCachedModelsLayer)
{
    const CacheFolder cache;
    openFromCache(*window, cache, 1);
    EXPECT_EQ(window->document()->session().weightsProvenance.file,
              (fs::path(cache.snapshot().toStdString()) / "model.safetensors").string());
}

}  // namespace
}  // namespace qkv::ui::testing
