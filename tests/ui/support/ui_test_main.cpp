// main() of every UI test executable: offscreen platform (set before QApplication, so
// gtest_discover_tests can run the binary at build time without a display), the build tree's
// data folder (the examples; a test program is not beside it as the app is), settings and the
// app's data (the autosave, under QStandardPaths::AppDataLocation) in a throw-away directory,
// one Eigen thread per computation and the window's extensions as in the app, then GoogleTest.
#include <QApplication>
#include <QSettings>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include "ui/document/compute_threads.hpp"
#include "ui/startup/window_extensions.hpp"
#include "support/test_paths.hpp"

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    if (qEnvironmentVariableIsEmpty("QKV_STUDIO_DATA_DIR")) qputenv("QKV_STUDIO_DATA_DIR", qkv::buildDataDir());
    QTemporaryDir settingsDirectory;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDirectory.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDirectory.path());
    qputenv("XDG_DATA_HOME", settingsDirectory.path().toLocal8Bit());
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("QKV Studio Tests"));
    QApplication::setApplicationName(QStringLiteral("qkv-ui-tests"));
    // As the app does: the compute already runs off the GUI thread, and an Eigen team per
    // background task oversubscribes the cores (a preset fit took 40 s instead of 0.7 s here).
    qkv::ui::useOneThreadPerComputation();
    qkv::ui::installWindowExtensions();  // the student guide in the Help menu, as in the app
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
