// The WCAG 2 contrast ratio against the standard's own anchors, and the label colour on a bar.
#include <gtest/gtest.h>

#include "ui/render/contrast.hpp"

using qkv::ui::contrastRatio;
using qkv::ui::readableOn;

TEST(Contrast, RatioMatchesWcagAnchors)
{
    EXPECT_NEAR(contrastRatio(Qt::black, Qt::white), 21.0, 1e-9);
    EXPECT_NEAR(contrastRatio(Qt::white, Qt::white), 1.0, 1e-9);
    // #767676 on white is the lightest grey that passes 4.5:1 (the usual quoted value 4.54).
    EXPECT_NEAR(contrastRatio(QColor(0x76, 0x76, 0x76), Qt::white), 4.54, 0.01);
    EXPECT_DOUBLE_EQ(contrastRatio(QColor(0x21, 0x66, 0xac), Qt::white),
                     contrastRatio(Qt::white, QColor(0x21, 0x66, 0xac)));
}

TEST(Contrast, LabelsOnBarsTakeTheBetterOfBlackAndWhite)
{
    EXPECT_EQ(readableOn(QColor(0x21, 0x66, 0xac)), QColor(Qt::white));  // dark blue
    EXPECT_EQ(readableOn(QColor(0x43, 0x93, 0xc3)), QColor(Qt::black));  // mid blue: 6:1 against 3:1
    EXPECT_EQ(readableOn(QColor(0xfd, 0xe7, 0x25)), QColor(Qt::black));  // viridis' yellow
}
