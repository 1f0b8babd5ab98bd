#include <gtest/gtest.h>

#include <QImage>
#include <QPainter>

#include <cmath>

#include "ui/render/heatmap_layout.hpp"
#include "ui/render/heatmap_painter.hpp"

using namespace qkv::ui;

namespace {

QImage render(const qkv::MatrixF& values, const HeatmapStyle& style, QSize size = {200, 200})
{
    QImage image(size, QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    paintHeatmap(painter, QRectF(QPointF(0, 0), QSizeF(size)), values, style);
    return image;
}

}  // namespace

TEST(HeatmapPainter, CellColoursComeFromTheColormap)
{
    qkv::MatrixF values(2, 2);
    values << 0.0f, 1.0f, 0.5f, 0.25f;
    HeatmapStyle style;
    style.drawLabels = false;
    const QImage image = render(values, style);
    const QFontMetricsF metrics(QFont(), &image);
    const HeatmapLayout layout(QRectF(0, 0, 200, 200), 2, 2, style, metrics);
    const Colormap& viridis = Colormap::get(ColormapName::Viridis);
    EXPECT_EQ(QColor(image.pixel(layout.cellRect(0, 0).center().toPoint())), viridis.map(0.0));
    EXPECT_EQ(QColor(image.pixel(layout.cellRect(0, 1).center().toPoint())), viridis.map(1.0));
    EXPECT_EQ(QColor(image.pixel(layout.cellRect(1, 0).center().toPoint())), viridis.map(0.5));
}

TEST(HeatmapPainter, NanCellsAreNeutral)
{
    qkv::MatrixF values(1, 1);
    values(0, 0) = std::nanf("");
    HeatmapStyle style;
    style.drawLabels = false;
    const QImage image = render(values, style, {40, 40});
    const QColor centre(image.pixel(20, 20));
    EXPECT_EQ(centre.red(), centre.green());  // grey (or its darker hatch)
    EXPECT_EQ(centre.green(), centre.blue());
}

TEST(HeatmapPainter, LargeMatricesAreAveragedNotAliased)
{
    // A fine checkerboard of 0 and 1, far more cells than pixels: the average is mid-range,
    // not a random pick of black and yellow.
    const int n = 1000;
    qkv::MatrixF values(n, n);
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) values(r, c) = static_cast<float>((r + c) % 2);
    HeatmapStyle style;
    style.colormap = ColormapName::Greys;
    style.drawLabels = false;
    const QImage image = render(values, style, {100, 100});
    const int grey = qGray(image.pixel(50, 50));
    EXPECT_GT(grey, 60);
    EXPECT_LT(grey, 200);
}

TEST(HeatmapLayout, CellAtInvertsCellRect)
{
    HeatmapStyle style;
    style.rowLabels = QStringList{QStringLiteral("the"), QStringLiteral("cat"), QStringLiteral("sat")};
    style.columnLabels = QStringList{QStringLiteral("le"), QStringLiteral("chat")};
    style.title = QStringLiteral("Head 1");
    const QFont font;
    const QFontMetricsF metrics(font);
    const HeatmapLayout layout(QRectF(10, 10, 300, 260), 3, 2, style, metrics);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 2; ++c) EXPECT_EQ(layout.cellAt(layout.cellRect(r, c).center()), QPoint(c, r));
    EXPECT_EQ(layout.cellAt(QPointF(0, 0)), QPoint(-1, -1));
    const QPointF label(layout.rowLabelsRect().center().x(), layout.rowRect(1).center().y());
    EXPECT_EQ(layout.rowLabelAt(label), 1);
    EXPECT_GT(layout.cellsRect().left(), layout.rowLabelsRect().left());
    EXPECT_LE(layout.cellsRect().right(), 310.0 + 1e-9);
}

TEST(HeatmapLayout, LabelsThinOutWhenRowsAreSmallerThanText)
{
    HeatmapStyle style;
    for (int i = 0; i < 300; ++i) {
        style.rowLabels << QStringLiteral("token%1").arg(i);
        style.columnLabels << QStringLiteral("token%1").arg(i);
    }
    const QFontMetricsF metrics{QFont()};
    const HeatmapLayout layout(QRectF(0, 0, 400, 400), 300, 300, style, metrics);
    EXPECT_GT(layout.rowLabelStep(), 1);
    // Labels drawn every rowLabelStep() rows are at least one text line apart.
    EXPECT_GE(layout.rowLabelStep() * layout.cellHeight(), metrics.ascent() + 1 - 1e-9);
    EXPECT_GE(layout.columnLabelStep() * layout.cellWidth(), metrics.ascent() + 1 - 1e-9);
}
