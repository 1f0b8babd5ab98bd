// The layer views' publication figures: named for the registry, available when they can be
// drawn and saying why not otherwise, painted without widgets, heatmaps as single images.

#include <QBuffer>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

#include "tests/ui/support/layer_test_support.hpp"
#include "ui/compare/compare_figures.hpp"
#include "ui/heads/head_statistics_figures.hpp"
#include "ui/matrices/matrices_figures.hpp"
#include "ui/qkmap/qk_map_figures.hpp"
#include "ui/steps/step_figures.hpp"

namespace qkv::ui::testing {
namespace {

std::vector<Figure> allLayerFigures()
{
    std::vector<Figure> all;
    for (auto list : {stepsFigures(), matricesFigures(), qkMapFigures(), compareFigures(), headStatisticsFigures()})
        all.insert(all.end(), list.begin(), list.end());
    return all;
}

TEST(LayerFigures, AreNamedAndPaintForEveryKindOfLayer)
{
    QStringList names;
    for (const Figure& f : allLayerFigures()) names << f.name;
    EXPECT_EQ(names, (QStringList{"steps", "matrices", "qk-map", "qk-map-heads", "compare", "compare-heads",
                                  "head-statistics"}));

    qkv::Config gqa = selfConfig();
    gqa.keyValueHeadCount = 2;
    gqa.positional = qkv::PositionalEncoding::Rotary;
    gqa.ablatedHeads = {3};
    qkv::Config causal = selfConfig();
    causal.mode = qkv::AttentionMode::DecoderCausal;
    causal.scaleScores = false;
    for (const qkv::Config& config : {crossConfig(), gqa, causal}) {
        FigureInput input;
        input.result = computeResult(config);
        input.pinned = input.result;
        input.options.head = 3;
        input.options.query = 2;
        input.options.key = 1;
        for (const Figure& f : allLayerFigures()) {
            EXPECT_TRUE(f.unavailable(input).isEmpty()) << f.name.toStdString();
            QImage image(f.defaultSize.toSize(), QImage::Format_ARGB32);
            image.fill(Qt::white);
            QPainter painter(&image);
            f.paint(painter, QRectF(QPointF(0, 0), f.defaultSize), input);
            painter.end();
            // Something was drawn besides the background.
            int dark = 0;
            for (int y = 0; y < image.height(); y += 7)
                for (int x = 0; x < image.width(); x += 7) dark += qGray(image.pixel(x, y)) < 128;
            EXPECT_GT(dark, 50) << f.name.toStdString();
        }
    }
}

TEST(LayerFigures, SayWhyTheyCannotBeDrawn)
{
    FigureInput input;
    input.result = computeResult(crossConfig());
    qkv::Config other = crossConfig();
    other.sourceText = "a b";
    input.pinned = computeResult(other);
    const std::vector<Figure> compare = compareFigures();
    EXPECT_TRUE(compare[0].unavailable(input).contains(QStringLiteral("no longer match")));
    input.pinned.reset();
    EXPECT_TRUE(compare[0].unavailable(input).contains(QStringLiteral("pin")));
    input.options.head = 9;
    for (const Figure& f : matricesFigures()) EXPECT_FALSE(f.unavailable(input).isEmpty());
}

TEST(LayerFigures, EachHeatmapIsOneImageInSvg)
{
    FigureInput input;
    input.result = computeResult(crossConfig());
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(QSize(1600, 900));
    svg.setViewBox(QRect(0, 0, 1600, 900));
    svg.setResolution(96);
    {
        QPainter painter(&svg);
        matricesFigures().front().paint(painter, QRectF(0, 0, 1600, 900), input);
    }
    const QByteArray text = buffer.data();
    EXPECT_EQ(text.count("<image"), kLayerMatrixCount);  // one image per matrix, no cell rectangles
    EXPECT_LT(text.count("<rect"), 200);
}

}  // namespace
}  // namespace qkv::ui::testing
