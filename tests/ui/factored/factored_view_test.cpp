// Widget tests of the factored W_i view. Assertions are EXPECT_/ASSERT_ only:
// QVERIFY/QCOMPARE inside a gtest body do not fail a test (docs/architecture.md, "Rules learned on this machine").

#include <QFontDatabase>
#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QTextDocument>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "core/common/random.hpp"
#include "core/factored/factored_matrix.hpp"
#include "tests/ui/factored/factored_test_support.hpp"
#include "ui/background/work_placement.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/factored/factor_product_widget.hpp"
#include "ui/factored/factored_figures.hpp"
#include "ui/factored/factored_head_model.hpp"
#include "ui/factored/factored_view.hpp"
#include "core/factored/matrix_pooling.hpp"
#include "ui/factored/spectrum_chart.hpp"
#include "ui/views/head_box.hpp"

namespace qkv::ui {
namespace {

using qkv::testing::computeOrFail;
using qkv::testing::exampleConfig;

// W^Q whose head `head` columns have rank `rank` (< d_k); everything else as the seeded
// initialisation. Column j of the block is column j mod rank times a power of two, so the
// block is exactly rank `rank` in float. (A float product A B of a d_model x rank and a
// rank x d_k matrix is not: its rounding errors, ~1e-7 relative, sit far above the double
// rank tolerance sigma_max * d_model * 2.2e-16, and the rank shown is d_k.)
AttentionWeights lowRankHeadWeights(Index d_model, Index heads, Index head, Index rank)
{
    AttentionWeights weights = initialiseWeights(d_model, 7, WeightInit::XavierUniform, false);
    const Index d_k = d_model / heads;
    auto block = weights.queryProjection.middleCols(head * d_k, d_k);
    for (Index j = rank; j < d_k; ++j) {
        const float scale = (j / rank) % 2 == 0 ? 0.5f : -2.0f;  // exact in float
        block.col(j) = block.col(j % rank) * scale;
    }
    return weights;
}

TEST(FactoredView, FontDatabaseIsNotEmpty)
{
    // Missing fonts draw every label as boxes without a warning (docs/architecture.md, "Rules learned on this machine").
    EXPECT_FALSE(QFontDatabase::families().isEmpty());
}

TEST(FactoredView, RankShownEqualsHeadDimensionForRandomWeights)
{
    for (const auto& [d_model, heads] : {std::pair<Index, Index>{64, 4}, {96, 3}, {64, 1}}) {
        auto result = computeOrFail(exampleConfig(d_model, heads));
        ASSERT_TRUE(result);
        FactoredView view;
        for (int head = 0; head < heads; ++head) {
            view.setResult(result);
            view.setSelectedHead(head);
            const Index d_k = d_model / heads;
            EXPECT_EQ(view.displayedRank(), d_k) << "d_model " << d_model << " h " << heads;
            EXPECT_EQ(view.displayedHeadDimension(), d_k);
            EXPECT_EQ(view.spectrumChart()->pointsAboveTolerance(), d_k);
            EXPECT_EQ(static_cast<Index>(view.spectrumChart()->singularValuePoints().size()), d_k);
            EXPECT_EQ(static_cast<Index>(view.spectrumChart()->exactZeroPoints().size()), d_model - d_k);
            EXPECT_TRUE(view.statisticsText().contains(QStringLiteral("<b>%1</b> = d_k").arg(d_k)))
                << view.statisticsText().toStdString();
        }
    }
}

TEST(FactoredView, RankDropsForConstructedLowRankHead)
{
    constexpr Index d_model = 64, heads = 4, head = 1, rank = 5;
    UserInputs inputs;
    inputs.weights = std::make_shared<const AttentionWeights>(lowRankHeadWeights(d_model, heads, head, rank));
    auto result = computeOrFail(exampleConfig(d_model, heads), inputs);
    ASSERT_TRUE(result);

    FactoredView view;
    view.setResult(result);
    view.setSelectedHead(static_cast<int>(head));
    EXPECT_EQ(view.displayedRank(), rank);
    EXPECT_EQ(view.spectrumChart()->pointsAboveTolerance(), rank);
    // Still d_k values from the factors: the others sit below the tolerance line.
    EXPECT_EQ(view.spectrumChart()->singularValuePoints().size(), std::size_t{16});
    EXPECT_TRUE(view.statisticsText().contains(QStringLiteral("rank-deficient")));
    // As the label shows it (rich text): the whole sentence, its "<" not read as a tag.
    QTextDocument shown;
    shown.setHtml(view.statisticsText());
    EXPECT_TRUE(shown.toPlainText().contains(
        QStringLiteral("numerical rank %1 < d_k = 16: this head is rank-deficient").arg(rank)))
        << shown.toPlainText().toStdString();
    // The other heads keep full rank.
    view.setSelectedHead(0);
    EXPECT_EQ(view.displayedRank(), 16);
}

// The headline says the factors match their product, of rank at most d_k, never "one W_i" of any
// rank, and states the trade-off with the numbers of this shape.
TEST(FactoredView, HeadlineSaysTheFactorsGiveTheirProductsScoresAndTheTradeOff)
{
    auto result = computeOrFail(exampleConfig(128, 8));
    ASSERT_TRUE(result);
    FactoredView view;
    view.setResult(result);
    view.setSelectedHead(2);
    const QString headline = view.headline();
    EXPECT_FALSE(headline.contains(QStringLiteral("as one"))) << headline.toStdString();
    EXPECT_TRUE(
        headline.contains(QStringLiteral("Head 3: two thin matrices W_i^Q and W_i^K give the same scores as "
                                         "their product W_i = W_i^Q (W_i^K)ᵀ, a 128 × 128 matrix of rank at "
                                         "most d_k = 16")))
        << headline.toStdString();
    EXPECT_TRUE(headline.contains(QStringLiteral("2 · 128 · 16 = 4,096 numbers instead of the 128 × 128 = 16,384")))
        << headline.toStdString();
    EXPECT_TRUE(headline.contains(QStringLiteral("limited to rank 16")));
    EXPECT_TRUE(headline.contains(QStringLiteral("the h = 8 heads together reach d_model = 128")));

    // At h = 1 the factors cost more than a full W_i, and the headline does not claim a saving.
    auto single = computeOrFail(exampleConfig(32, 1));
    ASSERT_TRUE(single);
    view.setResult(single);
    view.setSelectedHead(0);
    EXPECT_TRUE(view.headline().contains(QStringLiteral("more than the 32 × 32 = 1,024"))) << view.headline().toStdString();
}

TEST(FactoredView, SpectrumPointsAreCoreSingularValuesAndFloor)
{
    auto result = computeOrFail(exampleConfig(64, 4));
    ASSERT_TRUE(result);
    FactoredView view;
    view.setResult(result);
    view.setSelectedHead(2);
    const FactoredMatrix core = FactoredMatrix::forHead(*result->weights, 4, 2);
    const auto points = view.spectrumChart()->singularValuePoints();
    ASSERT_EQ(static_cast<Index>(points.size()), core.singularValues().size());
    for (std::size_t k = 0; k < points.size(); ++k) {
        EXPECT_DOUBLE_EQ(points[k].x(), static_cast<double>(k + 1));
        EXPECT_DOUBLE_EQ(points[k].y(), core.singularValues()(static_cast<Index>(k)));
    }
    EXPECT_DOUBLE_EQ(view.spectrumChart()->toleranceLevel(), core.rankTolerance());
    EXPECT_NEAR(view.displayedFrobeniusNorm(), core.frobeniusNorm(), 1e-12);
    for (const QPointF& p : view.spectrumChart()->exactZeroPoints()) {
        EXPECT_DOUBLE_EQ(p.y(), view.spectrumChart()->axisFloor());
        EXPECT_LT(p.y(), core.rankTolerance());
    }
}

TEST(FactoredView, ChangingHeadCountRepartitionsTheSameMatrix)
{
    auto four = computeOrFail(exampleConfig(64, 4));
    auto eight = computeOrFail(exampleConfig(64, 8));
    ASSERT_TRUE(four && eight);
    // Same seed and d_model: the same fused W^Q, split differently.
    ASSERT_TRUE(four->weights->queryProjection == eight->weights->queryProjection);

    FactoredView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(1400, 900);
    view.show();
    view.setResult(four);
    const auto partition4 = view.headPartition();
    const auto outlines4 = view.headOutlines();
    ASSERT_EQ(partition4.size(), 4u);
    ASSERT_EQ(outlines4.size(), 4u);
    for (std::size_t i = 0; i < partition4.size(); ++i) {
        EXPECT_EQ(partition4[i].first, static_cast<Index>(i) * 16);
        EXPECT_EQ(partition4[i].second, 16);
    }

    view.setResult(eight);
    const auto partition8 = view.headPartition();
    const auto outlines8 = view.headOutlines();
    ASSERT_EQ(partition8.size(), 8u);
    ASSERT_EQ(outlines8.size(), 8u);
    EXPECT_EQ(partition8[3].first, 24);
    EXPECT_EQ(partition8[3].second, 8);
    // The outlines tile the same matrix: same left and right edges, half the width each.
    EXPECT_NEAR(outlines8.front().left(), outlines4.front().left(), 1e-9);
    EXPECT_NEAR(outlines8.back().right(), outlines4.back().right(), 1e-9);
    EXPECT_NEAR(outlines8[0].width() * 2, outlines4[0].width(), 1e-9);
    for (std::size_t i = 1; i < outlines8.size(); ++i) {
        EXPECT_NEAR(outlines8[i].left(), outlines8[i - 1].right(), 1e-9);
    }
    // The spectrum follows d_k.
    EXPECT_EQ(view.displayedRank(), 8);
    EXPECT_EQ(view.spectrumChart()->exactZeroPoints().size(), 56u);
}

TEST(FactoredView, SelectedHeadIsClampedWhenHeadsShrink)
{
    FactoredView view;
    view.setResult(computeOrFail(exampleConfig(64, 8)));
    view.setSelectedHead(7);
    EXPECT_EQ(view.selectedHead(), 7);
    view.setResult(computeOrFail(exampleConfig(64, 4)));
    EXPECT_EQ(view.selectedHead(), 3);
}

TEST(FactoredView, EquivalenceShowsCoresReportAndBothMatrices)
{
    auto result = computeOrFail(exampleConfig(64, 4));
    ASSERT_TRUE(result);
    FactoredView view;
    view.setResult(result);
    view.setSelectedHead(1);
    const FactoredMatrix core = FactoredMatrix::forHead(*result->weights, 4, 1);
    const EquivalenceReport report = equivalenceReport(core, result->queryInput, result->keyValueInput);
    EXPECT_EQ(view.displayedMaxDifference(), report.maxAbsDifference);
    const ScoresBothWays& scores = view.model()->scores;
    ASSERT_EQ(scores.factored.rows(), result->queryInput.rows());
    ASSERT_EQ(scores.factored.cols(), result->keyValueInput.rows());
    EXPECT_LE((scores.factored - scores.full).cwiseAbs().maxCoeff(), 1e-9 * (1.0 + report.maxAbsScore));
    // Q_i K_i^T from core's attention (scaled by 1/sqrt(d_k), float) agrees with both.
    const MatrixD coreScores = result->attention.heads[1].scores.cast<double>() * std::sqrt(16.0);
    EXPECT_LE((coreScores - scores.factored).cwiseAbs().maxCoeff(), 1e-4 * (1.0 + report.maxAbsScore));
    EXPECT_TRUE(view.equivalenceText().contains(QStringLiteral("max |difference|")));
    EXPECT_FALSE(view.equivalenceText().contains(QStringLiteral("With biases")));
}

TEST(FactoredView, LargeModelComputesTheScoresOffTheGuiThread)
{
    auto result = computeOrFail(exampleConfig(768, 12));
    ASSERT_TRUE(result);
    FactoredView view;
    QSignalSpy ready(&view, &FactoredView::equivalenceReady);
    view.setResult(result);
    view.setSelectedHead(3);
    // The spectrum and rank are there at once (from the factors, cheap)...
    EXPECT_EQ(view.displayedRank(), 64);
    // ...the dense W_i for the full way arrives later.
    EXPECT_TRUE(view.equivalencePending());
    while (view.equivalencePending()) {
        ASSERT_TRUE(ready.wait(30000));
    }
    EXPECT_EQ(view.model()->head, 3);  // the stale head-0 result was dropped
    const FactoredMatrix core = FactoredMatrix::forHead(*result->weights, 12, 3);
    const EquivalenceReport report = equivalenceReport(core, result->queryInput, result->keyValueInput);
    EXPECT_EQ(view.displayedMaxDifference(), report.maxAbsDifference);
    EXPECT_LE(report.relativeError, 1e-12);
}

TEST(FactoredView, ALargeHeadsFactorsAndSpectrumAreComputedOffTheGuiThread)
{
    // h = 1: the factors are d_model x d_model, two QRs and an SVD of that size (seconds at 4096).
    auto result = computeOrFail(exampleConfig(512, 1));
    ASSERT_TRUE(result);
    ASSERT_GT(FactoredHeadModel::factorWork(result.get()), kGuiThreadWorkLimit);
    FactoredView view;
    QSignalSpy ready(&view, &FactoredView::equivalenceReady);
    view.setResult(result);
    EXPECT_EQ(view.model(), nullptr) << "the factors were computed on the GUI thread";
    ASSERT_TRUE(ready.wait(60000));
    ASSERT_NE(view.model(), nullptr);
    EXPECT_EQ(view.displayedHeadDimension(), 512);
    EXPECT_EQ(view.displayedRank(), 512);
    EXPECT_FALSE(view.equivalencePending());
}

TEST(FactoredView, ItsHeadBoxSetsTheSelectionAndRebuildsOnce)
{
    HeadSelection selection;  // shared, as with the other views
    FactoredView view(&selection);
    view.setResult(computeOrFail(exampleConfig(64, 4)));
    auto* headBox = view.findChild<HeadBox*>();
    ASSERT_NE(headBox, nullptr);
    QSignalSpy refreshed(&view, &ResultView::refreshed);
    QSignalSpy scores(&view, &FactoredView::equivalenceReady);
    headBox->activated(3);  // "Head 4"
    EXPECT_EQ(selection.head(), 3);
    EXPECT_EQ(view.displayedRank(), 16);
    EXPECT_EQ(view.model()->head, 3);
    // One model (factors, spectrum) and one computation of the scores both ways, not two.
    EXPECT_EQ(refreshed.count(), 1);
    EXPECT_EQ(scores.count(), 1);
    // The selection changed elsewhere (the heads grid): the box follows, again once.
    selection.setHead(1);
    EXPECT_EQ(headBox->currentIndex(), 1);  // "Head 2"
    EXPECT_EQ(refreshed.count(), 2);
    EXPECT_EQ(scores.count(), 2);
}

TEST(FactoredView, DestroyedWhileItsScoresAreComputedOffThread)
{
    auto result = computeOrFail(exampleConfig(768, 12));
    ASSERT_TRUE(result);
    auto view = std::make_unique<FactoredView>();
    view->setResult(result);
    EXPECT_TRUE(view->equivalencePending());
    view.reset();  // waits for the worker, delivers nothing (ASan would see a late delivery)
    QCoreApplication::processEvents();
}

TEST(FactoredView, RotaryPositionsExplainWhatRotationDoesToTheForm)
{
    FactoredView view;
    view.setResult(computeOrFail(exampleConfig(64, 4)));
    EXPECT_FALSE(view.equivalenceText().contains(QStringLiteral("R(s − t)")));
    for (const PositionalEncoding rotary : {PositionalEncoding::Rotary, PositionalEncoding::RotaryInterleaved}) {
        Config config = exampleConfig(64, 4);
        config.positional = rotary;
        view.setResult(computeOrFail(config));
        const QString text = view.equivalenceText();
        EXPECT_TRUE(text.contains(QStringLiteral("q_tᵀ R(s − t) k_s"))) << text.toStdString();
        EXPECT_TRUE(text.contains(QStringLiteral("W_i alone no longer fixes the score"))) << text.toStdString();
        EXPECT_GT(view.displayedRank(), 0);  // the spectrum is still W_i's
    }
}

// Qwen3's q_norm and k_norm: no fixed W_i is behind the scores, and the view says so.
TEST(FactoredView, QueryKeyNormsSayTheScoresHaveNoFixedWi)
{
    FactoredView view;
    const Config config = exampleConfig(64, 4);
    view.setResult(computeOrFail(config));
    EXPECT_FALSE(view.equivalenceText().contains(QStringLiteral("q_norm")));
    auto weights = std::make_shared<AttentionWeights>(*computeOrFail(config)->weights);
    weights->queryNorm = RowVectorF::Constant(16, 1.5f);
    weights->keyNorm = RowVectorF::Constant(16, 0.5f);
    UserInputs inputs;
    inputs.weights = weights;
    view.setResult(computeOrFail(config, inputs));
    const QString text = view.equivalenceText();
    EXPECT_TRUE(text.contains(QStringLiteral("the score is not x_tᵀ W_i x_s for a fixed W_i"))) << text.toStdString();
}

TEST(FactoredView, BiasSentenceAppearsWithBiases)
{
    FactoredView view;
    view.setResult(computeOrFail(exampleConfig(64, 4, /*withBias=*/true)));
    EXPECT_TRUE(view.equivalenceText().contains(QStringLiteral("b_i^Q b_i^Kᵀ")));
}

TEST(FactoredView, ZoomRecomputesWiAtTheNewWindow)
{
    auto result = computeOrFail(exampleConfig(768, 12));
    ASSERT_TRUE(result);
    FactoredView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(1400, 900);
    view.show();  // lays out the children, as on screen
    view.setResult(result);
    const FactorProductGeometry whole = view.factorProduct()->geometry();
    EXPECT_LT(whole.productBins, 768);  // drawn at the resolution of the screen, not d_model
    EXPECT_EQ(view.zoomWindow(), MatrixWindow::whole(768, 768));

    view.setZoomWindow(MatrixWindow{100, 200, 40, 40});
    EXPECT_EQ(view.zoomWindow(), (MatrixWindow{100, 200, 40, 40}));
    const FactorProductGeometry zoomed = view.factorProduct()->geometry();
    EXPECT_EQ(zoomed.productBins, 40);  // one cell per entry
    const FactorProductPicture picture = factorProductPicture(*view.model(), zoomed, view.zoomWindow());
    const MatrixD exact = view.model()->factored->denseBlock(100, 200, 40, 40);
    ASSERT_EQ(picture.product.rows(), exact.rows());
    ASSERT_EQ(picture.product.cols(), exact.cols());
    EXPECT_LE((picture.product - exact).cwiseAbs().maxCoeff(), 1e-12);

    // The wheel alone is left to the scroll area; Ctrl+wheel zooms about the cursor.
    FactorProductWidget* product = view.factorProduct();
    const QPointF centre = zoomed.product.center();
    for (const Qt::KeyboardModifiers modifiers : {Qt::KeyboardModifiers(Qt::NoModifier), Qt::KeyboardModifiers(Qt::ControlModifier)}) {
        QWheelEvent wheel(centre, product->mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton, modifiers,
                          Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(product, &wheel);
        if (modifiers == Qt::NoModifier) EXPECT_EQ(view.zoomWindow(), (MatrixWindow{100, 200, 40, 40}));
        else EXPECT_LT(view.zoomWindow().rows, 40);
    }
    view.setZoomWindow(MatrixWindow{100, 200, 40, 40});

    // Wheel-style zoom keeps the point under the cursor and stays inside the matrix.
    view.factorProduct()->zoomAt(110.0, 210.0, 2.0);
    const MatrixWindow w = view.zoomWindow();
    EXPECT_EQ(w.rows, 20);
    EXPECT_LE(w.row0, 110);
    EXPECT_GE(w.row0 + w.rows, 110);
    view.factorProduct()->resetZoom();
    EXPECT_EQ(view.zoomWindow(), MatrixWindow::whole(768, 768));
}

// Share of pixels in `rect` that are not (near) white: a heatmap block that shows something.
double colouredShare(const QImage& image, const QRectF& rect)
{
    qint64 coloured = 0, all = 0;
    for (int y = static_cast<int>(rect.top()) + 2; y < static_cast<int>(rect.bottom()) - 2; ++y)
        for (int x = static_cast<int>(rect.left()) + 2; x < static_cast<int>(rect.right()) - 2; ++x, ++all) {
            const QColor c = image.pixelColor(x, y);
            coloured += std::min({c.red(), c.green(), c.blue()}) < 215;
        }
    return all > 0 ? static_cast<double>(coloured) / static_cast<double>(all) : 0.0;
}

// One head of W^Q ~1000 times larger than the others (a hand-made preset's) leaves no block
// blank: each head has its own colour range, and so has each factor of the product.
TEST(FactoredView, EachHeadAndEachFactorHasAColourRangeThatShowsIt)
{
    constexpr Index d_model = 64, heads = 4, d_k = 16;
    AttentionWeights weights = initialiseWeights(d_model, 7, WeightInit::XavierUniform, false);
    weights.queryProjection.middleCols(0, d_k) *= 1000.0f;
    UserInputs inputs;
    inputs.weights = std::make_shared<const AttentionWeights>(weights);
    auto result = computeOrFail(exampleConfig(d_model, heads), inputs);
    ASSERT_TRUE(result);
    const FactoredHeadModel model = FactoredHeadModel::build(result, 0, false);
    ASSERT_TRUE(model.valid());

    const std::vector<double> ranges = headColorRanges(model);
    ASSERT_EQ(ranges.size(), std::size_t{heads});
    for (Index i = 0; i < heads; ++i)
        EXPECT_DOUBLE_EQ(ranges[static_cast<std::size_t>(i)],
                         weights.queryProjection.middleCols(i * d_k, d_k).cwiseAbs().maxCoeff());
    const QRectF target(0, 0, 800, 800);
    QImage image(800, 800, QImage::Format_RGB32);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        paintFusedLayout(painter, target, model);
    }
    const FusedLayoutGeometry g = fusedLayoutGeometry(target, QFontMetricsF(QFont(), &image), model);
    ASSERT_EQ(g.outlines.size(), std::size_t{heads});
    for (Index i = 0; i < heads; ++i)
        EXPECT_GT(colouredShare(image, g.outlines[static_cast<std::size_t>(i)]), 0.3) << "head " << i + 1 << " blank";

    // W_i^Q of head 1 is ~1000 times (W_i^K)^T: each factor on its own range.
    const MatrixWindow whole = MatrixWindow::whole(d_model, d_model);
    const FactorProductGeometry pg = factorProductGeometry(target, QFontMetricsF(QFont(), &image), model, whole);
    const FactorProductPicture picture = factorProductPicture(model, pg, whole);
    EXPECT_DOUBLE_EQ(picture.queryFactorRange, maxAbs(picture.left));
    EXPECT_DOUBLE_EQ(picture.keyFactorRange, maxAbs(picture.top));
    EXPECT_GT(picture.queryFactorRange, 100 * picture.keyFactorRange);
}

// Heads wider than d_model / h: W^Q is d_model x h d_k = 32 x 48, drawn 1.5 times as wide as
// tall, each head's block a quarter of it, and the title names both sizes.
TEST(FactoredView, TheFusedLayoutOfWideHeadsKeepsWQsShape)
{
    Config config = exampleConfig(32, 4);
    config.headDim = 12;
    auto result = computeOrFail(config);
    ASSERT_TRUE(result);
    const FactoredHeadModel model = FactoredHeadModel::build(result, 2, false);
    ASSERT_TRUE(model.valid());
    EXPECT_EQ(model.d_k, 12);
    const QRectF target(0, 0, 900, 700);
    QImage image(900, 700, QImage::Format_RGB32);
    const FusedLayoutGeometry g = fusedLayoutGeometry(target, QFontMetricsF(QFont(), &image), model);
    EXPECT_NEAR(g.cells.width() / g.cells.height(), 48.0 / 32.0, 0.02);
    ASSERT_EQ(g.outlines.size(), 4u);
    for (const QRectF& block : g.outlines) EXPECT_NEAR(block.width(), g.cells.width() / 4, 1e-9);
    EXPECT_NEAR(g.outlines[3].right(), g.cells.right(), 1e-9);
    const auto partition = headColumnPartition(48, 4);
    ASSERT_EQ(partition.size(), 4u);
    EXPECT_EQ(partition[2], (std::pair<Index, Index>{24, 12}));
}

TEST(FactoredView, RenderFigurePaintsAnImage)
{
    FactoredView view;
    view.resize(1400, 900);
    view.setResult(computeOrFail(exampleConfig(64, 4)));
    QImage image(1400, 900, QImage::Format_ARGB32);
    image.fill(Qt::transparent);
    {
        QPainter painter(&image);
        view.renderFigure(painter, QRectF(0, 0, 1400, 900));
    }
    // White background plus coloured cells: many distinct colours, no transparency left.
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 7) {
        for (int x = 0; x < image.width(); x += 7) {
            colours.insert(image.pixel(x, y));
        }
    }
    EXPECT_GT(colours.size(), 50);
    EXPECT_EQ(qAlpha(image.pixel(2, 2)), 255);
}

}  // namespace
}  // namespace qkv::ui
