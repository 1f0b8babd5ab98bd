#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>

#include "tests/ui/window/window_fixture.hpp"

using qkv::ui::testing::WindowTest;

TEST_F(WindowTest, ExportsPngSvgAndPdf)
{
    QTemporaryDir directory;
    ASSERT_TRUE(directory.isValid());
    for (const char* name : {"heads.png", "heads.svg", "heads.pdf"}) {
        const QString path = directory.filePath(QString::fromLatin1(name));
        EXPECT_EQ(window->exportHeadsFigure(path), QString()) << name;
        EXPECT_GT(QFileInfo(path).size(), 4000) << name;
    }
    QFile png(directory.filePath(QStringLiteral("heads.png")));
    ASSERT_TRUE(png.open(QIODevice::ReadOnly));
    EXPECT_TRUE(png.read(8).startsWith("\x89PNG"));
    QFile svg(directory.filePath(QStringLiteral("heads.svg")));
    ASSERT_TRUE(svg.open(QIODevice::ReadOnly));
    const QByteArray svgText = svg.readAll();
    EXPECT_TRUE(svgText.contains("viewBox="));
    EXPECT_TRUE(svgText.contains("sans-serif"));
    EXPECT_FALSE(svgText.contains("font-family=\"Sans Serif\""));
    EXPECT_TRUE(svgText.contains("Head 1"));
    QFile pdf(directory.filePath(QStringLiteral("heads.pdf")));
    ASSERT_TRUE(pdf.open(QIODevice::ReadOnly));
    EXPECT_TRUE(pdf.read(5).startsWith("%PDF"));
}

TEST_F(WindowTest, UnwritableExportPathGivesAnErrorAndWritesNothing)
{
    QTemporaryDir directory;
    // A path below a regular file cannot be created, even by root.
    const QString blocker = directory.filePath(QStringLiteral("not-a-directory"));
    QFile file(blocker);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.close();
    const QString path = blocker + QStringLiteral("/heads.png");
    const QString error = window->exportHeadsFigure(path);
    EXPECT_FALSE(error.isEmpty());
    EXPECT_TRUE(error.contains(QStringLiteral("heads.png"))) << error.toStdString();
    EXPECT_FALSE(QFileInfo::exists(path));
    // The window still shows its result.
    EXPECT_NE(window->document()->result(), nullptr);
}

TEST_F(WindowTest, UnknownExportFormatIsRefused)
{
    QTemporaryDir directory;
    const QString error = window->exportHeadsFigure(directory.filePath(QStringLiteral("heads.bmpx")));
    EXPECT_FALSE(error.isEmpty());
}
