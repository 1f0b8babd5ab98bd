// qkv-ui-screenshots OUTPUT_DIR: opens the main window in the situations docs/screenshots
// shows and saves each as PNG (QWidget::grab). Run under xvfb-run or QT_QPA_PLATFORM=offscreen.
#include <QApplication>
#include <QDir>
#include <QPixmap>
#include <QSettings>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

#include "ui/controls/controls_panel.hpp"
#include "core/config/examples.hpp"
#include "ui/document/compute_threads.hpp"
#include "ui/document/document.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/main_window.hpp"
#include "ui/mainwindow/view_tabs.hpp"

namespace {

void settle(qkv::ui::MainWindow& window)
{
    window.document()->waitUntilIdle();
    for (int i = 0; i < 5; ++i) {
        QCoreApplication::processEvents();
        QTest::qWait(30);
    }
}

bool save(qkv::ui::MainWindow& window, const QDir& directory, const char* name)
{
    settle(window);
    const QString path = directory.filePath(QString::fromLatin1(name));
    const bool ok = window.grab().save(path);
    std::printf("%s %s\n", ok ? "wrote" : "FAILED", qPrintable(path));
    return ok;
}

}  // namespace

int main(int argc, char** argv)
{
    QTemporaryDir settingsDirectory;  // never the user's settings
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDirectory.path());
    qputenv("XDG_DATA_HOME", settingsDirectory.path().toLocal8Bit());  // the autosave too
    QApplication app(argc, argv);
    qkv::ui::useOneEigenThreadPerComputation();  // as the app
    QApplication::setOrganizationName(QStringLiteral("QKV Studio Screenshots"));
    const QDir directory(argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("."));
    QDir().mkpath(directory.path());
    const QString only = argc > 2 ? QString::fromLocal8Bit(argv[2]) : QString();
    bool ok = true;

    qkv::ui::MainWindow window;
    window.resize(1400, 900);
    window.show();
    (void)QTest::qWaitForWindowExposed(&window);
    settle(window);
    window.selection()->setHead(1);
    window.selection()->setCell(1, 1);
    if (only.isEmpty() || only == QLatin1String("main")) ok &= save(window, directory, "main-window.png");

    if (only.isEmpty() || only == QLatin1String("steps")) {
        window.tabs()->setCurrentIndex(1);
        ok &= save(window, directory, "step-by-step.png");
        window.tabs()->setCurrentIndex(0);
    }

    const qkv::Config example = qkv::builtInExample();
    if (only.isEmpty() || only == QLatin1String("heads12")) {
        qkv::Config twelve = example;
        twelve.d_model = 768;
        twelve.headCount = 12;
        window.document()->reset(twelve);
        window.selection()->setHead(4);
        ok &= save(window, directory, "heads-12.png");
    }

    if (only.isEmpty() || only == QLatin1String("long")) {
        qkv::Config longSentence = example;
        longSentence.mode = qkv::AttentionMode::EncoderSelf;
        longSentence.sourceText =
            "Multi-head attention lets the model jointly attend to information from different representation "
            "subspaces at different positions. With a single attention head, averaging inhibits this. The "
            "Transformer follows this overall architecture using stacked self-attention and point-wise, fully "
            "connected layers for both the encoder and decoder, shown in the left and right halves of Figure 1, "
            "respectively. An attention function can be described as mapping a query and a set of key-value "
            "pairs to an output, where the query, keys, values, and output are all vectors.";
        longSentence.d_model = 128;
        longSentence.headCount = 8;
        window.document()->reset(longSentence);
        ok &= save(window, directory, "long-sentence.png");
    }

    if (only.isEmpty() || only == QLatin1String("error")) {
        window.document()->reset(example);
        settle(window);
        window.controls()->headsBox()->setValue(5);  // 5 does not divide 64
        ok &= save(window, directory, "error-state.png");
    }
    return ok ? 0 : 1;
}
