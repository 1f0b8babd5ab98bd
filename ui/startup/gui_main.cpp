#include "ui/startup/gui_main.hpp"

#include <QApplication>
#include <QFileInfo>
#include <QIcon>
#include <QTimer>

#include "ui/document/compute_threads.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/main_window.hpp"
#include "ui/render/app_palette.hpp"
#include "ui/startup/window_extensions.hpp"

namespace qkv::ui {

int runGui(int& argc, char** argv, const QString& sessionFile, const QString& notOpened)
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
    // The desktop's palette, or the light, dark or high-contrast one the user chose (View menu,
    // QKV_STUDIO_PALETTE), before the first widget exists.
    applyAppearance(storedAppearance());
    installWindowExtensions();
    MainWindow window;
    window.show();
    if (!sessionFile.isEmpty())
        QTimer::singleShot(0, &window, [&window, sessionFile, notOpened] {
            const QString error = window.files()->openFile(sessionFile);
            if (error.isEmpty() && !notOpened.isEmpty())
                emit window.files()->statusMessage(
                    QApplication::translate("runGui", "Opened %1. QKV Studio shows one session at a time; not opened: %2")
                        .arg(QFileInfo(sessionFile).fileName(), notOpened));
        });
    return QApplication::exec();
}

}  // namespace qkv::ui
