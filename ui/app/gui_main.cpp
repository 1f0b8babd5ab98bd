#include "ui/app/gui_main.hpp"

#include <QApplication>
#include <QIcon>
#include <QTimer>

#include "ui/document/compute_threads.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/main_window.hpp"

namespace qkv::ui {

int runGui(int& argc, char** argv, const QString& sessionFile)
{
    QApplication::setHighDpiScaleFactorRoundingPolicy(Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("QKV Studio"));
    QApplication::setApplicationName(QStringLiteral("QKV Studio"));
    QApplication::setApplicationDisplayName(QStringLiteral("QKV Studio"));
    QApplication::setApplicationVersion(QStringLiteral(QKV_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/qkv-studio.svg")));
    // The launcher entry this window belongs to (its icon and name in docks and task switchers).
    QGuiApplication::setDesktopFileName(QStringLiteral(QKV_APP_ID));
    useOneThreadPerComputation();
    MainWindow window;
    window.show();
    if (!sessionFile.isEmpty())
        QTimer::singleShot(0, &window, [&window, sessionFile] { window.files()->openFile(sessionFile); });
    return QApplication::exec();
}

}  // namespace qkv::ui
