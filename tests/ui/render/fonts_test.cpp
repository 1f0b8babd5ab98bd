// Missing fonts render every string as boxes with no warning (docs/architecture.md, "Rules learned on this machine").
#include <gtest/gtest.h>

#include <QFontDatabase>
#include <QImage>
#include <QPainter>

TEST(Fonts, DatabaseIsNotEmpty)
{
    EXPECT_FALSE(QFontDatabase::families().isEmpty());
}

TEST(Fonts, TextDrawsGlyphs)
{
    QImage image(200, 40, QImage::Format_ARGB32);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        painter.setPen(Qt::black);
        painter.drawText(image.rect(), Qt::AlignCenter, QStringLiteral("Attention"));
    }
    int dark = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            if (qGray(image.pixel(x, y)) < 128) ++dark;
    EXPECT_GT(dark, 50);
}
