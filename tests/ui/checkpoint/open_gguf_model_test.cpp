// File > Open Model… with the GGUF models Ollama and LM Studio keep: listed by their names with
// where they come from, how they are stored and the memory they will take; one chosen opens; one
// too large for the machine is refused with both figures; a broken file says core's message and
// the open document stays.

#include <QApplication>
#include <QDialogButtonBox>
#include <QLabel>
#include <QMessageBox>
#include <QTableWidget>
#include <QTimer>

#include <filesystem>
#include <fstream>
#include <future>
#include <string>

#include "core/checkpoint/checkpoint.hpp"
#include "core/gguf/gguf_file.hpp"
#include "support/test_folder.hpp"
#include "support/test_paths.hpp"
#include "tests/ui/support/wait_until.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/checkpoint/checkpoint_layer_dialog.hpp"
#include "ui/checkpoint/model_list_dialog.hpp"
#include "ui/document/document.hpp"

namespace qkv::ui::testing {
namespace {

namespace fs = std::filesystem;

const std::string kDigest(64, 'a');

// ~/.ollama/models with one model (qwen3:tiny, a blob without extension) and an LM Studio models
// folder with a Q8_0 LLaMA and a file that starts like a GGUF and ends at once.
class LocalModels {
public:
    LocalModels() : folder_("local_gguf")
    {
        const fs::path gguf = fs::path(qkv::testDataDir()) / "gguf" / "models";
        fs::create_directories(ollama() / "blobs");
        fs::copy_file(gguf / "qwen3" / "model.gguf", blob());
        const fs::path manifest = ollama() / "manifests/registry.ollama.ai/library/qwen3/tiny";
        fs::create_directories(manifest.parent_path());
        std::ofstream(manifest) << R"({"schemaVersion":2,"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:)"
                                << kDigest << R"("}]})";
        fs::create_directories(lmStudio() / "someone" / "Tiny-GGUF");
        fs::copy_file(gguf / "llama_q8_0" / "model.gguf", lmStudio() / "someone" / "Tiny-GGUF" / "tiny-Q8_0.gguf");
        std::ofstream(broken(), std::ios::binary) << "GGUF\x03";
    }
    fs::path home() const { return folder_.path(); }
    fs::path ollama() const { return home() / ".ollama" / "models"; }
    fs::path lmStudio() const { return home() / ".lmstudio" / "models"; }
    fs::path blob() const { return ollama() / "blobs" / ("sha256-" + kDigest); }
    fs::path broken() const { return lmStudio() / "someone" / "Tiny-GGUF" / "broken.gguf"; }
    ModelSources sources(std::size_t available) const
    {
        return {{}, ollama().string(), lmStudio().string(), [available] { return available; }};
    }

private:
    qkv::TestFolder folder_;
};

QString at(QTableWidget* table, int row, int column) { return table->item(row, column)->text(); }
bool enabled(QTableWidget* table, int row) { return table->item(row, 0)->flags() & Qt::ItemIsEnabled; }

TEST(OpenGgufModel, OllamaAndLmStudioModelsListedByName)
{
    const LocalModels local;
    ModelListDialog dialog(local.sources(std::size_t{64} << 30), QString());
    ASSERT_TRUE(waitUntil([&] { return !dialog.isListing() && dialog.table()->rowCount() > 0; }));
    QTableWidget* table = dialog.table();
    ASSERT_EQ(table->rowCount(), 3);
    using C = ModelListDialog::Column;
    EXPECT_EQ(at(table, 0, C::Name), QStringLiteral("qwen3:tiny"));
    EXPECT_EQ(at(table, 0, C::Source), QStringLiteral("Ollama"));
    EXPECT_EQ(at(table, 0, C::Family), QStringLiteral("qwen3"));
    EXPECT_EQ(at(table, 0, C::Layers), QStringLiteral("2"));
    EXPECT_EQ(at(table, 0, C::StoredAs), QStringLiteral("mostly F32"));
    EXPECT_FALSE(at(table, 0, C::Size).isEmpty());
    EXPECT_TRUE(at(table, 0, C::Memory).endsWith(QStringLiteral("whole"))) << at(table, 0, C::Memory).toStdString();
    EXPECT_EQ(at(table, 0, C::Status), QStringLiteral("yes"));
    EXPECT_TRUE(enabled(table, 0));

    // LM Studio's by their relative paths; the broken file greyed with core's own message.
    EXPECT_EQ(at(table, 1, C::Name), QStringLiteral("someone/Tiny-GGUF/broken.gguf"));
    EXPECT_EQ(at(table, 1, C::Source), QStringLiteral("LM Studio"));
    EXPECT_FALSE(enabled(table, 1));
    const Expected<GgufFile> refused = readGgufFile(local.broken().string());
    ASSERT_FALSE(refused);
    const std::string reason = refused.error().substr(refused.error().find(": ") + 2);
    EXPECT_TRUE(at(table, 1, C::Status).contains(QString::fromStdString(reason))) << at(table, 1, C::Status).toStdString();
    EXPECT_EQ(at(table, 2, C::Name), QStringLiteral("someone/Tiny-GGUF/tiny-Q8_0.gguf"));
    EXPECT_EQ(at(table, 2, C::StoredAs), QStringLiteral("mostly Q8_0"));
    EXPECT_TRUE(enabled(table, 2));

    // The first readable row is selected; Open takes the Ollama blob.
    EXPECT_EQ(table->currentRow(), 0);
    emit dialog.findChild<QDialogButtonBox*>()->accepted();
    EXPECT_EQ(dialog.result(), QDialog::Accepted);
    EXPECT_EQ(dialog.chosenPath(), QString::fromStdString(local.blob().string()));
}

TEST(OpenGgufModel, AModelTooLargeForTheMachineIsRefusedWithBothFigures)
{
    const LocalModels local;
    const std::size_t available = std::size_t{64} << 10;  // 64 KiB: less than its weights
    ModelListDialog dialog(local.sources(available), QString());
    ASSERT_TRUE(waitUntil([&] { return !dialog.isListing() && dialog.table()->rowCount() > 0; }));
    QTableWidget* table = dialog.table();
    ASSERT_EQ(table->rowCount(), 3);
    const Expected<Checkpoint> checkpoint = openCheckpoint(local.blob().string());
    ASSERT_TRUE(checkpoint) << checkpoint.error();
    const ModelLoadMemory estimate = estimateModelLoadMemory(*checkpoint, available);
    ASSERT_FALSE(estimate.fits());
    EXPECT_EQ(estimate.residency, WeightResidency::OneBlockAtATime);
    const QString status = at(table, 0, ModelListDialog::Status);
    EXPECT_FALSE(enabled(table, 0));
    EXPECT_TRUE(status.contains(QString::fromStdString(memoryFigure(estimate.oneBlockBytes)))) << status.toStdString();
    EXPECT_TRUE(status.contains(QStringLiteral("64 KiB available"))) << status.toStdString();
    EXPECT_TRUE(status.contains(QStringLiteral("one block at a time"))) << status.toStdString();
    EXPECT_TRUE(at(table, 0, ModelListDialog::Memory).endsWith(QStringLiteral("one block at a time")));
    // Nothing can be opened: no row selected, Open disabled, accepting does nothing.
    emit dialog.findChild<QDialogButtonBox*>()->accepted();
    EXPECT_NE(dialog.result(), QDialog::Accepted);
    EXPECT_TRUE(dialog.chosenPath().isEmpty());
}

// The names show before any header is read (each row is filled in as its headers are), and a
// row cannot be opened until then.
TEST(OpenGgufModel, NamesShowFirstAndEachRowFillsInOnceItsHeadersAreRead)
{
    const LocalModels local;
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    ModelSources sources = local.sources(0);
    sources.availableMemory = [released] {  // the describing worker asks this first: held here
        released.wait();
        return std::size_t{64} << 30;
    };
    ModelListDialog dialog(sources, QString());
    ASSERT_TRUE(waitUntil([&] { return dialog.table()->rowCount() == 3; }));
    EXPECT_TRUE(dialog.isListing());
    EXPECT_EQ(at(dialog.table(), 0, ModelListDialog::Name), QStringLiteral("qwen3:tiny"));
    EXPECT_EQ(at(dialog.table(), 0, ModelListDialog::Status), QStringLiteral("reading its headers…"));
    EXPECT_FALSE(enabled(dialog.table(), 0));
    emit dialog.findChild<QDialogButtonBox*>()->accepted();
    EXPECT_NE(dialog.result(), QDialog::Accepted);
    release.set_value();
    ASSERT_TRUE(waitUntil([&] { return !dialog.isListing(); }));
    EXPECT_EQ(at(dialog.table(), 0, ModelListDialog::Status), QStringLiteral("yes"));
    EXPECT_TRUE(enabled(dialog.table(), 0));
    EXPECT_EQ(dialog.table()->currentRow(), 0);
}

// Sets the variables the app reads its folders from, for the test's life.
class Environment {
public:
    Environment(const char* name, const std::string& value) : name_(name), before_(qgetenv(name))
    {
        qputenv(name, QByteArray::fromStdString(value));
    }
    ~Environment()
    {
        if (before_.isNull()) qunsetenv(name_);
        else qputenv(name_, before_);
    }

private:
    const char* name_;
    QByteArray before_;
};

TEST_F(WindowTest, OpenModelOpensAnOllamaModel)
{
    const LocalModels local;
    const Environment ollama("OLLAMA_MODELS", local.ollama().string());
    const Environment home("HOME", local.home().string());
    const Environment cache("HF_HUB_CACHE", (local.home() / "no-cache").string());
    bool listAnswered = false, layerAnswered = false;
    QTimer answer;
    QObject::connect(&answer, &QTimer::timeout, [&] {
        QWidget* modal = QApplication::activeModalWidget();
        if (auto* list = qobject_cast<ModelListDialog*>(modal); list && !list->isListing() && list->table()->rowCount() == 3) {
            list->selectRow(0);
            emit list->findChild<QDialogButtonBox*>()->accepted();
            listAnswered = true;
        } else if (auto* layers = qobject_cast<CheckpointLayerDialog*>(modal)) {
            layers->selectLayer(1);
            layers->accept();
            layerAnswered = true;
        }
    });
    answer.start(20);
    window->openModelInteractively();
    EXPECT_TRUE(listAnswered);
    EXPECT_TRUE(waitUntil([&] { return layerAnswered; }));
    EXPECT_TRUE(waitUntil([&] { return !window->document()->session().weightsProvenance.file.empty(); }));
    answer.stop();
    EXPECT_EQ(window->document()->session().weightsProvenance.file, local.blob().string());
}

TEST_F(WindowTest, ABrokenGgufSaysCoresMessageAndTheDocumentStays)
{
    const LocalModels local;
    const qkv::Config before = window->document()->config();
    QString shown;
    QTimer answer;
    QObject::connect(&answer, &QTimer::timeout, [&] {
        if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
            shown = box->text();
            box->close();
        }
    });
    answer.start(20);
    window->openCheckpoint(QString::fromStdString(local.broken().string()));
    EXPECT_TRUE(waitUntil([&] { return !shown.isEmpty(); }));
    answer.stop();
    const Expected<Checkpoint> refused = openCheckpoint(local.broken().string());
    ASSERT_FALSE(refused);
    EXPECT_TRUE(shown.contains(QString::fromStdString(refused.error()))) << shown.toStdString();
    EXPECT_EQ(window->document()->config().d_model, before.d_model);
    EXPECT_EQ(window->document()->config().sourceText, before.sourceText);
    EXPECT_TRUE(window->document()->session().weightsProvenance.file.empty());
}

}  // namespace
}  // namespace qkv::ui::testing
