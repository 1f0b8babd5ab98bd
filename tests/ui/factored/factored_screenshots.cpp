// Writes docs/screenshots/factored-<d_model>-<h>.png: the factored view at ~1400 x 900, grabbed
// offscreen (QWidget::grab), for looking at and for the docs. Not a test.
//   qkv_factored_screenshots OUTPUT_DIR
#include <QApplication>
#include <QDir>
#include <QImage>
#include <QPainter>
#include <QElapsedTimer>
#include <QThread>

#include <cstdio>

#include "core/config/examples.hpp"
#include "core/pipeline/compute.hpp"
#include "ui/factored/factored_view.hpp"

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QApplication app(argc, argv);
    const QString dir = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("docs/screenshots");
    QDir().mkpath(dir);
    const struct { qkv::Index d_model, heads; int head; bool bias; } shots[] = {
        {64, 4, 1, false}, {768, 12, 5, false}, {64, 4, 2, true}};
    for (const auto& shot : shots) {
        qkv::Config config = qkv::builtInExample();
        config.d_model = shot.d_model;
        config.headCount = shot.heads;
        config.withBias = shot.bias;
        auto result = qkv::compute(config);
        if (!result) {
            std::fprintf(stderr, "compute failed: %s\n", result.error().c_str());
            return 1;
        }
        qkv::ui::FactoredView view;
        view.setAttribute(Qt::WA_DontShowOnScreen);
        view.resize(1400, 900);
        view.show();
        view.setResult(result.value());
        view.setSelectedHead(shot.head);
        QElapsedTimer clock;
        clock.start();
        while (view.equivalencePending() && clock.elapsed() < 30000) {  // scores off the GUI thread
            QApplication::processEvents(QEventLoop::AllEvents, 50);
            QThread::msleep(10);
        }
        QApplication::processEvents();
        const QString name = QStringLiteral("%1/factored-%2-%3%4.png")
                                 .arg(dir)
                                 .arg(shot.d_model)
                                 .arg(shot.heads)
                                 .arg(shot.bias ? QStringLiteral("-bias") : QString());
        if (!view.grab().save(name)) {
            std::fprintf(stderr, "cannot write %s\n", qPrintable(name));
            return 1;
        }
        std::printf("%s\n", qPrintable(name));
        if (shot.d_model == 768) {  // also a zoomed-in grab and the export renderer
            view.setZoomWindow(qkv::ui::MatrixWindow{0, 0, 48, 48});
            QApplication::processEvents();
            view.grab().save(QStringLiteral("%1/factored-768-12-zoom.png").arg(dir));
            QImage figure(1400, 900, QImage::Format_ARGB32);
            QPainter painter(&figure);
            view.renderFigure(painter, QRectF(0, 0, 1400, 900));
            painter.end();
            figure.save(QStringLiteral("%1/factored-768-12-export.png").arg(dir));
        }
    }
    return 0;
}
