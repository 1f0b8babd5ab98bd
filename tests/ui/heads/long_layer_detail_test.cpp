// The long layer's detail pane: the selected query's whole row and an exact region of a streamed
// layer, checked against the held maps of the same layer (the streamed numbers equal them to
// float rounding), and the mouse: a wheel step, a click on the strip, a click and a drag in the
// region, the exact weight under the mouse. Their pure reductions on hand-built numbers:
// tests/core/analysis/row_strip_test.cpp and exact_region_test.cpp.

#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/pipeline/compute_request.hpp"
#include "tests/ui/support/layer_test_support.hpp"
#include "tests/ui/support/text_probe.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/heads/long_layer_detail.hpp"

namespace qkv::ui::testing {
namespace {

constexpr int kTokens = 1500;  // more keys than the strip has pixels, more positions than the region
constexpr double kStreamedTolerance = 1e-6;

std::shared_ptr<const qkv::Result> computeWith(const qkv::Config& config, const qkv::AnalysisPlan& plan)
{
    auto result = qkv::compute(qkv::prepareCompute(config, {}, plan));
    EXPECT_TRUE(result.ok()) << (result.ok() ? std::string() : result.error());
    return result.ok() ? result.value() : nullptr;
}

// One layer twice: streamed (no maps, the widget's input) and held (every map, the reference).
struct Layers {
    std::shared_ptr<const qkv::Result> streamed, held;
};

const Layers& encoderLayers()
{
    static const Layers layers = [] {
        const qkv::Config config = longConfig(kTokens, 64, 4);
        return Layers{computeWith(config, qkv::streamedPlan({}, 64)), computeWith(config, {})};
    }();
    return layers;
}

class LongLayerDetailTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(encoderLayers().streamed && encoderLayers().streamed->streamed());
        ASSERT_TRUE(encoderLayers().held && !encoderLayers().held->streamed());
        showAt(detail, QSize(1400, 350));
        selection.setHead(2);
        selection.setCell(700, 650);
        detail.setResult(encoderLayers().streamed);
        waitUntilIdle(detail);
        ASSERT_NE(detail.shownRow(), nullptr) << detail.stripError().toStdString();
        ASSERT_NE(detail.shownRegion(), nullptr) << detail.regionError().toStdString();
    }
    const qkv::MatrixF& heldMap() const { return encoderLayers().held->attention.heads[2].attention; }
    void expectRegionIsTheHeldBlock() const
    {
        const ExactRegion& region = *detail.shownRegion();
        const RegionBounds& b = region.bounds;
        EXPECT_EQ(b, detail.regionBounds());
        const qkv::MatrixF block = heldMap().block(b.firstRow, b.firstColumn, b.rows(), b.columns());
        ASSERT_EQ(region.values.rows(), block.rows());
        ASSERT_EQ(region.values.cols(), block.cols());
        EXPECT_LT((region.values - block).cwiseAbs().maxCoeff(), kStreamedTolerance);
    }
    void wheel(int delta)
    {
        const QPointF at = detail.regionPointOfCell(selection.queryRow(), selection.keyColumn());
        QWheelEvent event(at, detail.mapToGlobal(at), {}, QPoint(0, delta), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(&detail, &event);
        waitUntilIdle(detail);
    }

    HeadSelection selection;
    LongLayerDetail detail{&selection};
};

TEST_F(LongLayerDetailTest, TheStripIsTheHeldRowAndNamesItsTopKeys)
{
    const RowStrip& row = *detail.shownRow();
    EXPECT_EQ(row.head, 2);
    EXPECT_EQ(row.query, 700);
    ASSERT_EQ(row.keyCount(), kTokens);
    const qkv::MatrixF& held = heldMap();
    for (qkv::Index k = 0; k < kTokens; ++k)
        ASSERT_NEAR(row.weights[static_cast<std::size_t>(k)], held(700, k), kStreamedTolerance) << "key " << k;

    std::vector<qkv::Index> order(kTokens);
    std::iota(order.begin(), order.end(), qkv::Index{0});
    std::sort(order.begin(), order.end(), [&](qkv::Index a, qkv::Index b) { return held(700, a) > held(700, b); });
    const std::vector<KeyWeight> top = detail.shownTopKeys();
    ASSERT_EQ(top.size(), static_cast<std::size_t>(kTopKeys));
    for (int i = 0; i < kTopKeys; ++i) {
        EXPECT_EQ(top[static_cast<std::size_t>(i)].key, order[static_cast<std::size_t>(i)]) << "rank " << i + 1;
        EXPECT_NEAR(top[static_cast<std::size_t>(i)].weight, held(700, order[static_cast<std::size_t>(i)]),
                    kStreamedTolerance);
    }
    EXPECT_EQ(rowStripTitle(row), QStringLiteral("Head 3 · query 700 “%1”: its whole row, exact (1,500 keys)")
                                      .arg(QString::fromStdString(encoderLayers().streamed->queryLabels[700])));
}

TEST_F(LongLayerDetailTest, TheRegionIsTheHeldBlockDrawnByBlockMaxima)
{
    EXPECT_EQ(detail.regionBounds(), regionAround(700, 650, 256, kTokens, kTokens));
    expectRegionIsTheHeldBlock();
    const ExactRegion& region = *detail.shownRegion();
    // 256 positions on fewer pixels: each drawn pixel is the largest weight of its block.
    ASSERT_TRUE(region.reduced());
    const RegionBounds& b = region.bounds;
    for (qkv::Index i = 0; i < region.drawn.rows(); ++i)
        for (qkv::Index j = 0; j < region.drawn.cols(); ++j) {
            const auto r0 = region.rowEdges[static_cast<std::size_t>(i)], r1 = region.rowEdges[static_cast<std::size_t>(i) + 1];
            const auto c0 = region.columnEdges[static_cast<std::size_t>(j)], c1 = region.columnEdges[static_cast<std::size_t>(j) + 1];
            const float held = heldMap().block(b.firstRow + r0, b.firstColumn + c0, r1 - r0, c1 - c0).maxCoeff();
            ASSERT_NEAR(region.drawn(i, j), held, kStreamedTolerance) << "block " << i << ", " << j;
        }
}

// The exact region's ticks name their tokens, as the full maps' do: "1,234 cat" for each drawn
// label, zoomed out (blocks of positions) and in (one position a cell), never two overlapping.
TEST_F(LongLayerDetailTest, TheRegionLabelsItsTokensWithoutOverlap)
{
    const std::vector<std::string>& tokens = encoderLayers().streamed->queryLabels;
    const QFontMetricsF metrics(detail.font());
    const auto expectTokenLabels = [&](const char* zoom) {
        TextProbe probe(detail.size());
        detail.render(&probe);
        const RegionBounds b = detail.shownRegion()->bounds;
        std::vector<DrawnText> rows, columns;
        for (const DrawnText& t : probe.texts()) {
            const qsizetype space = t.text.indexOf(QLatin1Char(' '));
            if (space <= 0 || t.bounds.left() < detail.width() / 2) continue;  // the region is the right panel
            bool number = false;
            const qkv::Index position = t.text.left(space).remove(QLatin1Char(',')).toLongLong(&number);
            if (!number || position < std::min(b.firstRow, b.firstColumn) || position >= std::max(b.endRow, b.endColumn))
                continue;
            EXPECT_EQ(t.text, QStringLiteral("%1 %2").arg(groupedInteger(position), tokenText(tokens, position))) << zoom;
            (t.bounds.width() >= t.bounds.height() ? rows : columns).push_back(t);
        }
        EXPECT_GE(rows.size(), 3u) << zoom << ": " << probe.strings().join(QLatin1Char('|')).toStdString();
        EXPECT_GE(columns.size(), 3u) << zoom << ": " << probe.strings().join(QLatin1Char('|')).toStdString();
        // Neighbours may share their leading (the descent), never a glyph's body.
        const double leading = metrics.height() - metrics.ascent();
        for (const std::vector<DrawnText>* labels : {&rows, &columns})
            for (std::size_t i = 0; i < labels->size(); ++i)
                for (std::size_t j = i + 1; j < labels->size(); ++j) {
                    const QRectF both = (*labels)[i].bounds.intersected((*labels)[j].bounds);
                    EXPECT_LE(std::min(both.width(), both.height()), leading + 1.0)
                        << zoom << ": '" << (*labels)[i].text.toStdString() << "' and '" << (*labels)[j].text.toStdString()
                        << "' overlap";
                }
    };
    ASSERT_TRUE(detail.shownRegion()->reduced());
    expectTokenLabels("256 positions, by blocks");
    for (int step = 0; step < 3; ++step) wheel(120);  // 32 positions: one a cell
    ASSERT_FALSE(detail.shownRegion()->reduced());
    expectTokenLabels("32 positions");
}

TEST_F(LongLayerDetailTest, AWheelStepHalvesTheRegionAndHoverGivesTheExactWeight)
{
    wheel(120);
    EXPECT_EQ(detail.regionBounds(), regionAround(700, 650, 128, kTokens, kTokens));
    expectRegionIsTheHeldBlock();
    EXPECT_FALSE(detail.shownRegion()->reduced());  // 128 positions fit the pixels
    const QString tip = detail.toolTipAt(detail.regionPointOfCell(710, 640));
    EXPECT_TRUE(tip.contains(QStringLiteral("query 710 ")) && tip.contains(QStringLiteral("key 640 "))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(preciseNumber(heldMap()(710, 640)))) << tip.toStdString();

    wheel(-120);
    wheel(-120);
    EXPECT_EQ(detail.regionBounds(), regionAround(700, 650, 512, kTokens, kTokens));
    expectRegionIsTheHeldBlock();
}

TEST_F(LongLayerDetailTest, AClickOnTheStripSelectsThatKeyAndRecentresTheRegion)
{
    const qkv::Index key = detail.shownTopKeys().front().key;
    QTest::mouseClick(&detail, Qt::LeftButton, {}, detail.stripPointOfKey(key));
    EXPECT_EQ(selection.keyColumn(), key);
    EXPECT_EQ(selection.queryRow(), 700);
    EXPECT_EQ(detail.regionBounds(), regionAround(700, key, 256, kTokens, kTokens));
    waitUntilIdle(detail);
    expectRegionIsTheHeldBlock();
    // Over the strip the tool tip names the key under the mouse and its exact weight.
    const QString tip = detail.toolTipAt(detail.stripPointOfKey(key));
    EXPECT_TRUE(tip.contains(QStringLiteral("key %1 ").arg(groupedInteger(key)))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(preciseNumber(heldMap()(700, key)))) << tip.toStdString();
}

TEST_F(LongLayerDetailTest, AClickInTheRegionSelectsACellAndADragZoomsIntoARectangle)
{
    wheel(120);  // 128 positions: a position per cell or more
    QTest::mouseClick(&detail, Qt::LeftButton, {}, detail.regionPointOfCell(720, 630));
    EXPECT_EQ(selection.queryRow(), 720);
    EXPECT_EQ(selection.keyColumn(), 630);
    EXPECT_EQ(detail.regionBounds(), regionAround(700, 650, 128, kTokens, kTokens));  // inside: no jump

    const QPoint from = detail.regionPointOfCell(650, 600), to = detail.regionPointOfCell(689, 659);
    QTest::mousePress(&detail, Qt::LeftButton, {}, from);
    QTest::mouseMove(&detail, (from + to) / 2);
    QTest::mouseMove(&detail, to);
    QTest::mouseRelease(&detail, Qt::LeftButton, {}, to);
    const RegionBounds zoomed = detail.regionBounds();
    // The corners' positions, give or take the one the mouse's pixel rounds to.
    EXPECT_NEAR(zoomed.firstRow, 650, 1);
    EXPECT_NEAR(zoomed.endRow, 690, 1);
    EXPECT_NEAR(zoomed.firstColumn, 600, 1);
    EXPECT_NEAR(zoomed.endColumn, 660, 1);
    waitUntilIdle(detail);
    expectRegionIsTheHeldBlock();
}

TEST_F(LongLayerDetailTest, AHeadChosenElsewhereIsFollowedAndAHeldResultShowsItsRowOnly)
{
    selection.setHead(0);
    waitUntilIdle(detail);
    EXPECT_EQ(detail.shownRow()->head, 0);
    EXPECT_EQ(detail.shownRegion()->head, 0);
    EXPECT_NEAR(detail.shownRow()->weights[10], encoderLayers().held->attention.heads[0].attention(700, 10),
                kStreamedTolerance);

    // Its maps are held: the heads grid shows the cells, the detail the selected row, from the map.
    detail.setResult(encoderLayers().held);
    EXPECT_EQ(detail.shownRegion(), nullptr);
    selection.setCell(3, 4);
    waitUntilIdle(detail);
    ASSERT_NE(detail.shownRow(), nullptr);
    EXPECT_EQ(detail.shownRow()->query, 3);
    EXPECT_EQ(detail.shownRow()->weights[10], encoderLayers().held->attention.heads[0].attention(3, 10));
    EXPECT_TRUE(detail.shownRow()->maxima.empty());
    EXPECT_EQ(detail.shownRegion(), nullptr);

    detail.setResult(nullptr);
    EXPECT_FALSE(detail.isBusy());
    EXPECT_EQ(detail.shownRow(), nullptr);
    EXPECT_TRUE(detail.toolTipAt(QPoint(100, 100)).isEmpty());
}

TEST_F(LongLayerDetailTest, ASpansRowIsTheMeanOfItsRowsAndAKeyClickedKeepsTheSpan)
{
    selection.setQuerySpan(650, 710);
    waitUntilIdle(detail);
    const RowStrip* row = detail.shownRow();
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(row->query, 650);
    EXPECT_EQ(row->queryEnd, 710);
    ASSERT_EQ(row->maxima.size(), row->weights.size());
    for (const qkv::Index key : {0, 17, 650, 999, 1499}) {
        const auto rows = heldMap().middleRows(650, 60).col(key);
        EXPECT_NEAR(row->weights[static_cast<std::size_t>(key)], rows.cast<double>().mean(), kStreamedTolerance) << key;
        EXPECT_NEAR(row->maxima[static_cast<std::size_t>(key)], rows.maxCoeff(), kStreamedTolerance) << key;
    }
    EXPECT_TRUE(rowStripTitle(*row).contains(QStringLiteral("queries 650–709 (60 together)")))
        << rowStripTitle(*row).toStdString();

    const qkv::Index top = row->top.front().key;
    const QPoint at = detail.stripPointOfKey(top);
    ASSERT_GE(at.x(), 0) << top;
    QTest::mouseClick(&detail, Qt::LeftButton, {}, at);
    EXPECT_EQ(selection.keyColumn(), top);
    EXPECT_EQ(selection.queryRow(), 650);
    EXPECT_EQ(selection.querySpanEnd(), 710);
}

TEST(LongLayerDetailMask, ACausalRowShadesItsMaskedKeysAndTheRegionMarksThem)
{
    qkv::Config config = longConfig(600, 32, 2);
    config.targetText = config.sourceText;
    config.mode = qkv::AttentionMode::DecoderCausal;
    const auto streamed = computeWith(config, qkv::streamedPlan({}, 32));
    ASSERT_TRUE(streamed && streamed->streamed());
    HeadSelection selection;
    LongLayerDetail detail(&selection);
    showAt(detail, QSize(1400, 350));
    selection.setCell(300, 250);
    detail.setResult(streamed);
    waitUntilIdle(detail);
    ASSERT_NE(detail.shownRow(), nullptr);
    EXPECT_EQ(detail.shownRow()->maskedRuns, (std::vector<std::pair<qkv::Index, qkv::Index>>{{301, 600}}));
    EXPECT_EQ(detail.shownRow()->weights[450], 0.0f);
    ASSERT_NE(detail.shownRegion(), nullptr);
    const ExactRegion& region = *detail.shownRegion();
    // The region's top right corner lies above the diagonal: masked, drawn as "no value".
    EXPECT_TRUE(std::isnan(region.drawn(0, region.drawn.cols() - 1)));
    EXPECT_FALSE(std::isnan(region.drawn(region.drawn.rows() - 1, 0)));
}

}  // namespace
}  // namespace qkv::ui::testing
