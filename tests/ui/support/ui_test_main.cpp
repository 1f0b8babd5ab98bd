// main() of every UI test executable: offscreen platform (set before QApplication, so
// gtest_discover_tests can run the binary at build time without a display), settings in a
// throw-away directory, then GoogleTest.
#include <QApplication>
#include <QSettings>
#include <QTemporaryDir>

#include <gtest/gtest.h>

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QTemporaryDir settingsDirectory;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDirectory.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDirectory.path());
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("QKV Studio Tests"));
    QApplication::setApplicationName(QStringLiteral("qkv-ui-tests"));
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
