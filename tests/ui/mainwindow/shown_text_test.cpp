// Data that looks like markup (a file named "<i>w<u>&amp;.safetensors") is shown as typed in
// every label of the window: labels that show data are plain text, rich ones escape it.

#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextDocument>

#include "core/io/weights_file.hpp"
#include "core/weights/attention_weights.hpp"
#include "tests/ui/support/window_fixture.hpp"

namespace qkv::ui::testing {
namespace {

// What a label shows: its text, read as HTML when the label reads it so.
QString shownText(const QLabel& label)
{
    const bool rich =
        label.textFormat() == Qt::RichText || (label.textFormat() == Qt::AutoText && Qt::mightBeRichText(label.text()));
    if (!rich) return label.text();
    QTextDocument document;
    document.setHtml(label.text());
    return document.toPlainText();
}

class ShownTextTest : public WindowTest {};

TEST_F(ShownTextTest, EveryLabelShowsAFileNameThatLooksLikeMarkupAsTyped)
{
    QTemporaryDir directory;
    const QString name = QStringLiteral("<i>w<u>&amp;.safetensors");
    const QString path = directory.filePath(name);
    ASSERT_TRUE(
        qkv::saveAttentionWeights(path.toStdString(), qkv::initialiseWeights(32, 7, qkv::WeightInit::Normal, false))
            .ok());
    QSignalSpy loaded(window.get(), &MainWindow::weightsLoaded);
    window->loadWeights(path);
    ASSERT_TRUE(loaded.wait(10000));
    settle();
    ASSERT_EQ(loaded.first().first().toString(), QString());

    // Every tab once, so every view has filled its labels.
    auto* tabs = window->findChild<QTabWidget*>();
    ASSERT_NE(tabs, nullptr);
    int naming = 0;
    for (int tab = 0; tab < tabs->count(); ++tab) {
        tabs->setCurrentIndex(tab);
        settle();
        for (const QLabel* label : window->findChildren<QLabel*>()) {
            const QString shown = shownText(*label);
            if (!shown.contains(QStringLiteral(".safetensors"))) continue;
            ++naming;
            EXPECT_TRUE(shown.contains(name)) << label->objectName().toStdString() << " shows «" << shown.toStdString()
                                              << "» for «" << label->text().toStdString() << "»";
        }
    }
    EXPECT_GT(naming, 0) << "no label names the weights' file";
}

}  // namespace
}  // namespace qkv::ui::testing
