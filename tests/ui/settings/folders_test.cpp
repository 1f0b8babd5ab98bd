// A dialog starts in a folder that exists: the first candidate that does, else home.

#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include "ui/settings/folders.hpp"

namespace qkv::ui {
namespace {

TEST(FirstExistingFolder, TakesTheFirstCandidateThatExists)
{
    QTemporaryDir root;
    ASSERT_TRUE(QDir(root.path()).mkdir(QStringLiteral("slides")));
    const QString slides = root.filePath(QStringLiteral("slides"));
    const QString gone = root.filePath(QStringLiteral("gone"));
    EXPECT_EQ(firstExistingFolder({slides, root.path()}), slides);
    EXPECT_EQ(firstExistingFolder({gone, slides}), slides);
    EXPECT_EQ(firstExistingFolder({QString(), slides}), slides) << "an empty candidate is passed over";
}

TEST(FirstExistingFolder, FilesAndMissingFoldersFallBackToHome)
{
    QTemporaryDir root;
    const QString file = root.filePath(QStringLiteral("notes.txt"));
    QFile(file).open(QIODevice::WriteOnly);
    const QString home = QStandardPaths::writableLocation(QStandardPaths::HomeLocation);
    EXPECT_EQ(firstExistingFolder({root.filePath(QStringLiteral("gone")), file}), home) << "a file is not a folder";
    EXPECT_EQ(firstExistingFolder({}), home);
}

}  // namespace
}  // namespace qkv::ui
