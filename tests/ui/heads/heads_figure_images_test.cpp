// A panel larger than its place on screen is averaged down from prepared halvings (so that the
// GUI thread never averages 16.8 million cells in one paint); the picture is the one the whole
// matrix averaged down gives.

#include <gtest/gtest.h>

#include <QImage>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>

#include "core/pipeline/compute.hpp"
#include "ui/heads/heads_figure.hpp"

namespace qkv::ui {
namespace {

std::shared_ptr<const Result> longResult(int tokens)
{
    Config config;
    static const char* words[] = {"the", "cat", "sat", "on", "mat", "because", "it", "was", "tired"};
    for (int i = 0; i < tokens; ++i) config.sourceText += std::string(i > 0 ? " " : "") + words[i % 9];
    config.mode = AttentionMode::EncoderSelf;
    config.d_model = 16;
    config.headCount = 1;
    auto result = compute(config);
    EXPECT_TRUE(result.ok());
    return result.ok() ? result.value() : nullptr;
}

// Mean and largest difference of the colour channels of two images of one size.
std::pair<double, int> difference(const QImage& a, const QImage& b)
{
    const QImage x = a.convertToFormat(QImage::Format_RGB32), y = b.convertToFormat(QImage::Format_RGB32);
    double total = 0;
    int largest = 0;
    for (int r = 0; r < x.height(); ++r)
        for (int c = 0; c < x.width(); ++c) {
            const QRgb p = x.pixel(c, r), q = y.pixel(c, r);
            for (const int d : {qRed(p) - qRed(q), qGreen(p) - qGreen(q), qBlue(p) - qBlue(q)}) {
                total += std::abs(d);
                largest = std::max(largest, std::abs(d));
            }
        }
    return {total / (3.0 * x.width() * x.height()), largest};
}

TEST(HeadsFigure, APanelIsAveragedDownFromItsHalvingsAsFromTheWholeMatrix)
{
    const auto result = longResult(1100);
    ASSERT_NE(result, nullptr);
    const HeadsFigure figure(result, HeadsFigureSpec{});
    ASSERT_EQ(figure.rows(), 1100);
    const QSize wanted(240, 230);  // from the 550-pixel halving
    const QImage direct = figure.image(0, ColormapName::Viridis)
                              .scaled(wanted, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
    figure.prepareImages(ColormapName::Viridis);
    const QImage& reduced = figure.imageForPixels(0, ColormapName::Viridis, wanted);
    ASSERT_EQ(reduced.size(), wanted);
    const auto [mean, largest] = difference(reduced, direct);
    EXPECT_LT(mean, 2.0);
    EXPECT_LT(largest, 48);
    // Larger than the panel: the panel itself.
    EXPECT_EQ(figure.imageForPixels(0, ColormapName::Viridis, QSize(2000, 2000)).size(), QSize(1100, 1100));
}

// The heads view asks the work pool for the reduced images at the size the panels have on screen:
// painting then finds them made (the same image object, no averaging on the GUI thread), and they
// are the pictures painting would have made.
TEST(HeadsFigure, TheShownSizeIsPreparedOffTheGuiThread)
{
    const auto result = longResult(700);
    ASSERT_NE(result, nullptr);
    const QSize shown(300, 300);
    const HeadsFigure onDemand(result, HeadsFigureSpec{});
    onDemand.prepareImages(ColormapName::Viridis);
    const QImage expected = onDemand.imageForPixels(0, ColormapName::Viridis, shown);
    const HeadsFigure prepared(result, HeadsFigureSpec{});
    prepared.prepareImages(ColormapName::Viridis, shown);
    const QImage* made = &prepared.imageForPixels(0, ColormapName::Viridis, shown);
    EXPECT_EQ(*made, expected);
    EXPECT_EQ(made, &prepared.imageForPixels(0, ColormapName::Viridis, shown)) << "cached, not made again";
    EXPECT_EQ(made->size(), shown);
}

}  // namespace
}  // namespace qkv::ui
