// qkv-layer-screenshots OUTPUT_DIR [NAME]: the main window showing the layer views of issue 8
// in the situations the README shows, saved as PNG (QWidget::grab of the whole window). A tool,
// not a test: run it under xvfb-run (the real platform plugin) and look at every picture.
#include <QApplication>
#include <QDir>
#include <QPixmap>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>
#include <string>

#include "core/config/examples.hpp"
#include "ui/compare/compare_figures.hpp"
#include "ui/compare/compare_view.hpp"
#include "ui/heads/head_statistics_figures.hpp"
#include "ui/matrices/matrices_figures.hpp"
#include "ui/qkmap/qk_map_figures.hpp"
#include "ui/steps/step_figures.hpp"
#include <QImage>
#include <QPainter>
#include "ui/document/document.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/main_window.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/matrices/matrices_view.hpp"
#include "ui/qkmap/qk_map_view.hpp"
#include "ui/steps/step_view.hpp"

namespace {

template <class T> T* find(qkv::ui::MainWindow& window)
{
    for (qkv::ui::ResultView* view : window.tabs()->views())
        if (auto* found = qobject_cast<T*>(view)) return found;
    return nullptr;
}

void settle(qkv::ui::MainWindow& window)
{
    window.document()->waitUntilIdle();
    for (int i = 0; i < 40; ++i) {
        QCoreApplication::processEvents();
        QTest::qWait(25);
    }
}

qkv::Config longConfig(int tokens, qkv::Index d_model, qkv::Index heads)
{
    static const char* words[] = {"the", "cat", "sat", "on", "mat", "because", "it", "was", "tired", "and", "warm"};
    qkv::Config config = qkv::builtInExample();
    config.sourceText.clear();
    for (int i = 0; i < tokens; ++i) config.sourceText += std::string(words[i % 11]) + " ";
    config.mode = qkv::AttentionMode::EncoderSelf;
    config.d_model = d_model;
    config.headCount = heads;
    return config;
}

}  // namespace

int main(int argc, char** argv)
{
    QTemporaryDir settingsDirectory;  // never the user's settings
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDirectory.path());
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("QKV Studio Screenshots"));
    const QDir directory(argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("."));
    QDir().mkpath(directory.path());
    const QString only = argc > 2 ? QString::fromLocal8Bit(argv[2]) : QString();
    bool ok = true;

    qkv::ui::MainWindow window;
    window.show();
    (void)QTest::qWaitForWindowExposed(&window);
    const auto shot = [&](const char* name, QSize size, qkv::ui::ResultView* view, const auto& prepare) {
        if (!only.isEmpty() && !QString::fromLatin1(name).startsWith(only)) return;
        window.resize(size);
        window.tabs()->setCurrentWidget(view);
        prepare();
        settle(window);
        const QString path = directory.filePath(QString::fromLatin1(name) + QStringLiteral(".png"));
        const bool saved = window.grab().save(path);
        std::printf("%s %s\n", saved ? "wrote" : "FAILED", qPrintable(path));
        ok &= saved;
    };
    qkv::ui::HeadSelection* selection = window.selection();
    const qkv::Config example = qkv::builtInExample();
    const auto select = [selection](int head, int query, int key) {
        selection->setHead(head);
        selection->setCell(query, key);
    };
    auto* steps = find<qkv::ui::StepView>(window);
    auto* matrices = find<qkv::ui::MatricesView>(window);
    auto* qkMap = find<qkv::ui::QkMapView>(window);
    auto* compare = find<qkv::ui::CompareView>(window);
    auto* heads = find<qkv::ui::HeadsView>(window);

    for (const QSize size : {QSize(1000, 700), QSize(1400, 900), QSize(1920, 1080)}) {
        const std::string suffix = "-" + std::to_string(size.width()) + "x" + std::to_string(size.height());
        const auto example1 = [&] {
            window.document()->reset(example);
            settle(window);
            select(1, 1, 1);
        };
        shot(("steps" + suffix).c_str(), size, steps, example1);
        shot(("matrices" + suffix).c_str(), size, matrices, example1);
        shot(("qkmap" + suffix).c_str(), size, qkMap, example1);
        shot(("heads-statistics" + suffix).c_str(), size, heads, example1);
        shot(("compare" + suffix).c_str(), size, compare, [&] {
            window.document()->reset(example);
            settle(window);
            compare->pin();
            qkv::Config doubled = example;
            doubled.scales.query = 2.0f;  // "what changed when I doubled W^Q"
            window.document()->reset(doubled);
            select(1, 1, 1);
        });
    }
    // Grouped-query attention, rotary positions and a switched-off head, step by step.
    shot("steps-gqa-rotary-ablated-1400x900", QSize(1400, 900), steps, [&] {
        qkv::Config config = example;
        config.mode = qkv::AttentionMode::DecoderCausal;
        config.headCount = 4;
        config.keyValueHeadCount = 2;
        config.positional = qkv::PositionalEncoding::Rotary;
        config.ablatedHeads = {2};
        window.document()->reset(config);
        settle(window);
        select(2, 6, 3);
    });
    // 512 tokens at d_model 1024: pooled for drawing.
    shot("matrices-512-1024-1920x1080", QSize(1920, 1080), matrices, [&] {
        window.document()->reset(longConfig(512, 1024, 16));
        settle(window);
        select(3, 200, 100);
    });
    shot("qkmap-512-768-1920x1080", QSize(1920, 1080), qkMap, [&] {
        window.document()->reset(longConfig(512, 768, 12));
        settle(window);
        select(3, 200, 100);
    });
    shot("steps-512-768-1920x1080", QSize(1920, 1080), steps, [&] {
        window.document()->reset(longConfig(512, 768, 12));
        settle(window);
        select(3, 200, 100);
    });
    shot("heads-statistics-512-768-1400x900", QSize(1400, 900), heads, [&] {
        window.document()->reset(longConfig(512, 768, 12));
        settle(window);
        select(3, 200, 100);
    });
    // The publication figures as export would draw them: white, no selection marks.
    if (only.isEmpty() || only == QLatin1String("figure")) {
        qkv::ui::FigureInput input;
        qkv::Config doubled = example;
        doubled.scales.query = 2.0f;
        input.pinned = qkv::compute(example).value();
        input.result = qkv::compute(doubled).value();
        input.options.head = 1;
        input.options.query = 1;
        input.options.key = 1;
        input.options.font = QApplication::font();
        std::vector<qkv::ui::Figure> figures;
        for (auto list : {qkv::ui::stepsFigures(), qkv::ui::matricesFigures(), qkv::ui::qkMapFigures(),
                          qkv::ui::compareFigures(), qkv::ui::headStatisticsFigures()})
            figures.insert(figures.end(), list.begin(), list.end());
        for (const qkv::ui::Figure& figure : figures) {
            QImage image(figure.defaultSize.toSize(), QImage::Format_ARGB32);
            image.fill(Qt::white);
            QPainter painter(&image);
            figure.paint(painter, QRectF(QPointF(0, 0), figure.defaultSize), input);
            painter.end();
            const QString path = directory.filePath(QStringLiteral("figure-%1.png").arg(figure.name));
            const bool saved = image.save(path);
            std::printf("%s %s\n", saved ? "wrote" : "FAILED", qPrintable(path));
            ok &= saved;
        }
    }
    return ok ? 0 : 1;
}
