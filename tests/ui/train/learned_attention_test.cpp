// The learned-attention picture: every head gets a panel inside the picture, none overlapping;
// the tokens label the cells while they have room and give way to the cells when they would
// crowd them; titles shorten rather than run out of their panel.

#include <QFont>
#include <QFontMetricsF>
#include <QImage>
#include <QPainter>

#include <gtest/gtest.h>

#include "ui/render/heatmap_layout.hpp"
#include "ui/train/learned_attention.hpp"

namespace qkv::ui {
namespace {

LearnedAttention picture(int heads, int tokens)
{
    LearnedAttention a;
    a.title = QStringLiteral("Factored W_i^Q, W_i^K · step 1,000");
    a.shortTitle = QStringLiteral("factored · step 1,000");
    for (int h = 0; h < heads; ++h) {
        a.heads.push_back(qkv::MatrixF::Constant(tokens, tokens, 1.0f / static_cast<float>(tokens)));
        a.headTitles << QStringLiteral("Head %1 · 97% aligned").arg(h + 1);
        a.shortHeadTitles << QStringLiteral("%1 · 97%").arg(h + 1);
    }
    for (int t = 0; t < tokens; ++t) {
        a.rowLabels << QStringLiteral("w%1").arg(t);
        a.columnLabels << QStringLiteral("w%1").arg(t);
    }
    return a;
}

void expectPanelsInsideAndApart(const LearnedAttentionLayout& layout, const QRectF& target)
{
    for (std::size_t i = 0; i < layout.panels.size(); ++i) {
        EXPECT_TRUE(target.contains(layout.panels[i])) << "panel " << i;
        EXPECT_FALSE(layout.panels[i].intersects(layout.legend)) << "panel " << i;
        for (std::size_t j = i + 1; j < layout.panels.size(); ++j)
            EXPECT_FALSE(layout.panels[i].intersects(layout.panels[j])) << i << " and " << j;
    }
}

TEST(LearnedAttentionTest, RoomyPanelsAreLabelledWithTheTokensAndTheirFullTitles)
{
    const QFontMetricsF metrics(QFont{});
    const QRectF target(0, 0, 900, 700);
    const LearnedAttention a = picture(4, 12);
    const LearnedAttentionLayout layout = layoutLearnedAttention(a, target, metrics);
    ASSERT_EQ(layout.panels.size(), 4u);
    expectPanelsInsideAndApart(layout, target);
    EXPECT_TRUE(layout.labels);
    EXPECT_EQ(layout.headTitles, a.headTitles);
    EXPECT_EQ(layout.titleText, a.title);
}

TEST(LearnedAttentionTest, CrowdedPanelsGiveTheLabelsRoomToTheCellsAndShortenTheirTitles)
{
    const QFontMetricsF metrics(QFont{});
    const QRectF target(0, 0, 200, 170);
    const LearnedAttention a = picture(4, 33);
    const LearnedAttentionLayout layout = layoutLearnedAttention(a, target, metrics);
    ASSERT_EQ(layout.panels.size(), 4u);
    expectPanelsInsideAndApart(layout, target);
    EXPECT_FALSE(layout.labels);
    for (int head = 0; head < 4; ++head) {
        EXPECT_NE(layout.headTitles[head], a.headTitles[head]);
        EXPECT_LE(metrics.horizontalAdvance(layout.headTitles[head]), layout.panels[static_cast<std::size_t>(head)].width());
    }
    EXPECT_EQ(layout.titleText, a.shortTitle);
}

// A short, wide picture (the Train tab's heads over a full W_i's spectrum in a 1000 x 700
// window) puts its colour bar at the right, so the heads get the height: they were 20 px.
TEST(LearnedAttentionTest, AShortPictureStandsItsColourBarBesideTheHeads)
{
    const QFontMetricsF metrics(QFont{});
    const QRectF target(0, 0, 360, 140);
    const LearnedAttention a = picture(4, 12);
    const LearnedAttentionLayout layout = layoutLearnedAttention(a, target, metrics);
    ASSERT_EQ(layout.panels.size(), 4u);
    expectPanelsInsideAndApart(layout, target);
    EXPECT_GT(layout.legend.height(), layout.legend.width());  // upright, right of the heads
    for (const QRectF& panel : layout.panels) {
        EXPECT_LE(panel.right(), layout.legend.left());
        EXPECT_GE(panel.height(), 0.5 * target.height()) << panel.height();
    }
    // A tall picture keeps the bar under the heads.
    const LearnedAttentionLayout tall = layoutLearnedAttention(a, QRectF(0, 0, 600, 330), metrics);
    EXPECT_GT(tall.legend.width(), tall.legend.height());
}

TEST(LearnedAttentionTest, ACellsToolTipNamesTheHeadTheTokensAndTheWeight)
{
    const QImage image(900, 700, QImage::Format_ARGB32);
    const QFontMetricsF metrics(QFont{}, &image);
    const QRectF target(0, 0, 900, 700);
    LearnedAttention a = picture(2, 4);
    a.heads[1](2, 3) = 0.75f;
    const LearnedAttentionLayout layout = layoutLearnedAttention(a, target, metrics);
    // The centre of cell (query 2, key 3) of head 2, where the heatmap painter puts it.
    HeatmapStyle style;
    style.rowLabels = a.rowLabels;
    style.columnLabels = a.columnLabels;
    style.title = layout.headTitles[1];
    const HeatmapLayout cells(layout.panels[1], 4, 4, style, metrics);
    const QString tip = learnedAttentionToolTip(a, target, metrics, cells.cellRect(2, 3).center());
    EXPECT_TRUE(tip.contains(QStringLiteral("0.750"))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("Head 2"))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("«w2»"))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("«w3»"))) << tip.toStdString();
    EXPECT_TRUE(learnedAttentionToolTip(a, target, metrics, QPointF(1, 1)).isEmpty());
}

}  // namespace
}  // namespace qkv::ui
