// placePanel: a corner of the area that misses the rectangle to avoid, else the least covering.

#include <gtest/gtest.h>

#include "ui/guide/panel_placement.hpp"

namespace qkv::ui::testing {
namespace {

const QRect kArea(0, 0, 1000, 600);
const QSize kPanel(300, 200);

TEST(PanelPlacement, BottomLeftWhenItMissesTheTarget)
{
    const QRect placed = placePanel(kPanel, kArea, QRect(400, 0, 600, 600), 10);
    EXPECT_EQ(placed, QRect(10, 390, 300, 200));
}

TEST(PanelPlacement, AnotherCornerWhenBottomLeftCoversTheTarget)
{
    const QRect target(0, 300, 200, 300);  // bottom-left
    const QRect placed = placePanel(kPanel, kArea, target, 10);
    EXPECT_FALSE(placed.intersects(target));
    EXPECT_EQ(placed, QRect(690, 390, 300, 200));  // bottom-right
}

TEST(PanelPlacement, LeastOverlapWhenEveryCornerCovers)
{
    const QRect target(20, 100, 850, 400);  // under every corner, least under the right ones
    const QRect placed = placePanel(kPanel, kArea, target, 10);
    EXPECT_EQ(placed.topLeft(), QPoint(690, 390));
    EXPECT_TRUE(kArea.contains(placed));
}

TEST(PanelPlacement, NeverLargerThanTheArea)
{
    const QRect placed = placePanel(QSize(2000, 2000), kArea, QRect(), 10);
    EXPECT_TRUE(kArea.contains(placed));
    EXPECT_EQ(placed.size(), QSize(980, 580));
}

}  // namespace
}  // namespace qkv::ui::testing
