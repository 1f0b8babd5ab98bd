// File > Open Model…: the Hugging Face cache's models listed off the GUI thread, one that cannot be
// read greyed with its reason, the last one opened first, and the chosen one opening its layers.

#include <QApplication>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>

#include <filesystem>
#include <fstream>

#include "support/test_paths.hpp"
#include "tests/ui/mainwindow/window_fixture.hpp"
#include "tests/ui/support/wait_until.hpp"
#include "ui/checkpoint/checkpoint_layer_dialog.hpp"
#include "ui/checkpoint/model_list_dialog.hpp"
#include "ui/document/document.hpp"

namespace qkv::ui::testing {
namespace {

namespace fs = std::filesystem;

// A cache as huggingface_hub writes it: the GPT-2 fixture as links into blobs/, and a model whose
// only weights are a pickle.
class CacheFolder {
public:
    CacheFolder()
    {
        const fs::path hub(dir_.path().toStdString());
        const fs::path gpt2 = hub / "models--tiny--gpt2";
        snapshot_ = gpt2 / "snapshots" / "c0ffee";
        fs::create_directories(gpt2 / "blobs");
        fs::create_directories(snapshot_);
        fs::create_directories(gpt2 / "refs");
        int blob = 0;
        for (const char* name : {"config.json", "model.safetensors", "vocab.json", "merges.txt"}) {
            const std::string hash = "b" + std::to_string(blob++);
            fs::copy_file(fs::path(qkv::testDataDir()) / "pretrained" / "gpt2" / name, gpt2 / "blobs" / hash);
            fs::create_symlink(fs::path("..") / ".." / "blobs" / hash, snapshot_ / name);
        }
        std::ofstream(gpt2 / "refs" / "main") << "c0ffee";
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
    EXPECT_TRUE(table->item(0, 4)->text().contains(QStringLiteral("never loads pickles"))) << table->item(0, 4)->text().toStdString();
    EXPECT_EQ(table->item(1, 0)->text(), QStringLiteral("tiny/gpt2"));
    EXPECT_EQ(table->item(1, 1)->text(), QStringLiteral("gpt2"));
    EXPECT_EQ(table->item(1, 2)->text(), QStringLiteral("3"));
    EXPECT_EQ(table->item(1, 4)->text(), QStringLiteral("yes"));
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

TEST_F(WindowTest, OpenModelOpensTheChosenCachedModelsLayer)
{
    const CacheFolder cache;
    const QByteArray before = qgetenv("HF_HUB_CACHE");
    qputenv("HF_HUB_CACHE", cache.path().toLocal8Bit());
    // Answer the two dialogs as a user would: the model, then its first layer.
    bool listAnswered = false, layerAnswered = false;
    QTimer answer;
    QObject::connect(&answer, &QTimer::timeout, [&] {
        QWidget* modal = QApplication::activeModalWidget();
        if (auto* list = qobject_cast<ModelListDialog*>(modal); list && !list->isListing() && list->table()->rowCount() == 2) {
            list->selectRow(1);
            emit list->findChild<QDialogButtonBox*>()->accepted();
            listAnswered = true;
        } else if (auto* layers = qobject_cast<CheckpointLayerDialog*>(modal)) {
            layers->selectLayer(0);
            layers->accept();
            layerAnswered = true;
        }
    });
    answer.start(20);
    window->openModelInteractively();
    ASSERT_TRUE(listAnswered);
    ASSERT_TRUE(waitUntil([&] { return layerAnswered; }));
    ASSERT_TRUE(waitUntil([&] { return !window->document()->session().weightsProvenance.file.empty(); }));
    answer.stop();
    EXPECT_EQ(window->document()->session().weightsProvenance.file,
              (fs::path(cache.snapshot().toStdString()) / "model.safetensors").string());
    if (before.isNull()) qunsetenv("HF_HUB_CACHE");
    else qputenv("HF_HUB_CACHE", before);
}

}  // namespace
}  // namespace qkv::ui::testing
