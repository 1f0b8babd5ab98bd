// A long layer in the heads grid (ui/heads/pooled_panels.hpp): each panel is the head's map in
// blocks, checked against the held map of the same layer pooled here by hand; blocks are mapped
// to positions and back; what a long layer does not keep says so.

#include <gtest/gtest.h>

#include <cmath>

#include "tests/ui/support/layer_test_support.hpp"
#include "ui/heads/cell_tooltip.hpp"
#include "ui/heads/heads_figure.hpp"
#include "ui/heads/pooled_panels.hpp"

namespace qkv::ui {
namespace {

using testing::computeResult;
using testing::longConfig;
using testing::streamedResult;

qkv::Config causalConfig()
{
    qkv::Config config = longConfig(40, 32, 4);
    config.mode = qkv::AttentionMode::DecoderCausal;
    config.targetText = config.sourceText;
    return config;
}

// Block (i, j) of `map` over the edges: mean (masked cells as 0) and maximum.
std::pair<double, double> block(const qkv::MatrixF& map, const std::vector<qkv::Index>& rows,
                                const std::vector<qkv::Index>& columns, std::size_t i, std::size_t j)
{
    const qkv::MatrixF cells = map.block(rows[i], columns[j], rows[i + 1] - rows[i], columns[j + 1] - columns[j]);
    return {cells.cast<double>().mean(), cells.maxCoeff()};
}

TEST(PooledHeads, EachPanelIsTheHeldMapInBlocksAndHiddenBlocksAreHatched)
{
    const auto held = computeResult(causalConfig());
    const auto streamed = streamedResult(causalConfig(), 8);
    ASSERT_TRUE(held && streamed && streamed->streamed());
    for (const bool maxima : {false, true}) {
        HeadsFigureSpec spec;
        spec.blockMaxima = maxima;
        spec.withAverage = true;
        const HeadsFigure figure(streamed, spec);
        ASSERT_TRUE(figure.pooled());
        ASSERT_EQ(figure.panelCount(), 5);  // 4 heads and their mean
        ASSERT_EQ(figure.rows(), 8);
        ASSERT_EQ(figure.columns(), 8);
        const std::vector<qkv::Index> edges = qkv::blockEdges(40, 8);
        qkv::MatrixF mean = qkv::MatrixF::Zero(8, 8);
        for (int head = 0; head < 4; ++head) {
            const qkv::MatrixF& map = held->attention.heads[static_cast<std::size_t>(head)].attention;
            for (std::size_t i = 0; i < 8; ++i)
                for (std::size_t j = 0; j < 8; ++j) {
                    const float shown = figure.panel(head)(static_cast<int>(i), static_cast<int>(j));
                    // Causal: a block wholly right of the diagonal has no visible cell.
                    if (edges[j] > edges[i + 1] - 1) {
                        EXPECT_TRUE(std::isnan(shown)) << head << " " << i << " " << j;
                        continue;
                    }
                    const auto [blockMean, blockMax] = block(map, edges, edges, i, j);
                    EXPECT_NEAR(shown, maxima ? blockMax : blockMean, 1e-6) << head << " " << i << " " << j;
                    mean(static_cast<int>(i), static_cast<int>(j)) += shown / 4.0f;
                }
        }
        for (int i = 0; i < 8; ++i)
            for (int j = 0; j <= i; ++j) EXPECT_NEAR(figure.panel(4)(i, j), mean(i, j), 1e-6);
        EXPECT_TRUE(figure.caption().contains(QStringLiteral("8 × 8 blocks of up to 5 × 5 positions")))
            << figure.caption().toStdString();
    }
}

TEST(PooledHeads, BlocksMapToTheirPositionsAndBack)
{
    const auto streamed = streamedResult(causalConfig(), 8);
    ASSERT_TRUE(streamed);
    const HeadsFigure figure(streamed, {});
    for (int row = 0; row < figure.rows(); ++row) {
        const auto [first, end] = figure.rowPositions(row);
        EXPECT_EQ(end - first, 5);
        for (qkv::Index q = first; q < end; ++q) EXPECT_EQ(figure.rowOfPosition(q), row);
        EXPECT_EQ(figure.positionOfRow(row), first);
    }
    EXPECT_EQ(figure.columnOfPosition(39), 7);
    EXPECT_EQ(figure.columnOfPosition(40), -1);
    EXPECT_EQ(figure.rowLabels().front(), QStringLiteral("0"));
    EXPECT_EQ(figure.rowLabels()[1], QStringLiteral("5"));

    // A held figure's cells are positions.
    const HeadsFigure heldFigure(computeResult(causalConfig()), {});
    EXPECT_FALSE(heldFigure.pooled());
    EXPECT_EQ(heldFigure.rowOfPosition(17), 17);
    EXPECT_EQ(heldFigure.positionOfColumn(23), 23);
}

TEST(PooledHeads, ABlockOfOnePositionIsLabelledWithItsToken)
{
    const std::vector<std::string> tokens{"a", "b", "c"};
    EXPECT_EQ(pooledLabels({0, 1, 2, 3}, tokens), (QStringList{"a", "b", "c"}));
    EXPECT_EQ(pooledLabels({0, 2, 3}, tokens), (QStringList{"0", "c"}));
    EXPECT_EQ(blockOfPosition({0, 2, 3}, 1), 0);
    EXPECT_EQ(blockOfPosition({0, 2, 3}, 2), 1);
    EXPECT_EQ(blockOfPosition({0, 2, 3}, 3), -1);
}

TEST(PooledHeads, WhatALongLayerDoesNotKeepIsNamedNotDrawn)
{
    const auto streamed = streamedResult(causalConfig(), 8);
    ASSERT_TRUE(streamed);
    for (const ScoreKind kind : {ScoreKind::ScaledScores, ScoreKind::MaskedScores, ScoreKind::ValueWeighted}) {
        HeadsFigureSpec spec;
        spec.kind = kind;
        const HeadsFigure figure(streamed, spec);
        EXPECT_EQ(figure.panelCount(), 0);
        EXPECT_TRUE(figure.error().contains(QStringLiteral("--rows/--cols"))) << figure.error().toStdString();
        EXPECT_TRUE(figure.caption().contains(figure.error()));
    }
}

TEST(PooledHeads, ABlocksTipGivesItsPositionsMeanAndLargestWeight)
{
    const auto streamed = streamedResult(causalConfig(), 8);
    ASSERT_TRUE(streamed);
    const qkv::PooledAttention& pooled = streamed->streamedHeads[1].pooled;
    const QString tip = pooledCellToolTip(*streamed, 1, 6, 2, {30, 35}, {10, 15});
    EXPECT_TRUE(tip.contains(QStringLiteral("Head 2"))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("queries 30–34 × keys 10–14"))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QString::number(pooled.mean(6, 2), 'g', 4))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QString::number(pooled.max(6, 2), 'g', 4))) << tip.toStdString();
    EXPECT_TRUE(pooledCellToolTip(*streamed, 1, 8, 2, {40, 41}, {10, 15}).isEmpty());  // no such block
}

}  // namespace
}  // namespace qkv::ui
