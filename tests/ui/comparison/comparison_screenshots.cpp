// Writes docs/screenshots/comparison-<d_model>-<h>.png: the comparison view at ~1400 x 900,
// grabbed offscreen after the live timing has arrived. Not a test.
//   qkv_comparison_screenshots OUTPUT_DIR
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QThread>

#include <cstdio>

#include "core/config/examples.hpp"
#include "core/pipeline/compute.hpp"
#include "ui/comparison/comparison_view.hpp"

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QApplication app(argc, argv);
    const QString dir = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("docs/screenshots");
    QDir().mkpath(dir);
    const struct { qkv::Index d_model, heads, g; } shots[] = {{64, 4, 2}, {768, 12, 4}};
    for (const auto& shot : shots) {
        qkv::Config config = qkv::builtInExample();
        config.d_model = shot.d_model;
        config.headCount = shot.heads;
        auto result = qkv::compute(config);
        if (!result) {
            std::fprintf(stderr, "compute failed: %s\n", result.error().c_str());
            return 1;
        }
        qkv::ui::ComparisonView view;
        view.setAttribute(Qt::WA_DontShowOnScreen);
        view.resize(1400, 900);
        view.show();
        view.setResult(result.value());
        view.setKeyValueHeads(shot.g);
        QElapsedTimer clock;
        clock.start();
        while (!view.lastTiming() && clock.elapsed() < 30000) {
            QApplication::processEvents(QEventLoop::AllEvents, 50);
            QThread::msleep(20);  // idle like a real GUI thread; a busy loop would steal a core
        }
        QApplication::processEvents();
        const QString name = QStringLiteral("%1/comparison-%2-%3.png").arg(dir).arg(shot.d_model).arg(shot.heads);
        if (!view.grab().save(name)) {
            std::fprintf(stderr, "cannot write %s\n", qPrintable(name));
            return 1;
        }
        std::printf("%s\n%s\n", qPrintable(name), qPrintable(view.timingText()));
    }
    return 0;
}
