// The other heatmaps as screen readers read them: Matrices' A_i, Factored's W_i and its scores
// both ways, a long layer's exact region and pooled blocks, the Model tab's layers x heads and
// Predict's generated tokens x heads. Each expected number is read here from core's own matrices.

#include <QAccessible>

#include <cmath>

#include "core/checkpoint/checkpoint.hpp"
#include "core/pipeline/compute_request.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "support/test_paths.hpp"
#include "tests/ui/accessibility/accessibility_events.hpp"
#include "tests/ui/support/layer_test_support.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/factored/factor_product_widget.hpp"
#include "ui/factored/factored_view.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/heads/cell_tooltip.hpp"
#include "ui/heads/long_layer_detail.hpp"
#include "ui/matrices/matrices_view.hpp"
#include "ui/modelgrid/model_grid_text.hpp"
#include "ui/modelgrid/model_grid_view.hpp"
#include "ui/predict/generation_attention.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"

namespace qkv::ui::testing {
namespace {

QAccessibleInterface* accessible(QWidget* widget)
{
    QAccessibleInterface* iface = QAccessible::queryAccessibleInterface(widget);
    EXPECT_NE(iface, nullptr);
    EXPECT_EQ(iface ? iface->role() : QAccessible::NoRole, QAccessible::Table);
    return iface;
}

QString cellName(QAccessibleTableInterface& table, int row, int column)
{
    QAccessibleInterface* cell = table.cellAt(row, column);
    EXPECT_NE(cell, nullptr) << row << ", " << column;
    return cell ? cell->text(QAccessible::Name) : QString();
}

QString token(const std::vector<std::string>& labels, Index index)
{
    return QString::fromStdString(labels[static_cast<std::size_t>(index)]);
}

std::shared_ptr<const PretrainedModel> bertModel()
{
    static const std::shared_ptr<const PretrainedModel> model = [] {
        Expected<Checkpoint> checkpoint = openCheckpoint(std::string(qkv::testDataDir()) + "/pretrained/bert");
        EXPECT_TRUE(checkpoint) << checkpoint.error();
        if (!checkpoint) return std::shared_ptr<const PretrainedModel>();
        Expected<PretrainedModel> loaded = loadPretrainedModel(*checkpoint);
        EXPECT_TRUE(loaded) << loaded.error();
        return loaded ? std::make_shared<const PretrainedModel>(std::move(*loaded)) : nullptr;
    }();
    return model;
}

}  // namespace

TEST(ViewTables, MatricesReadsTheSelectedHeadsAttention)
{
    MatricesView view(nullptr);
    showAt(view, QSize(1300, 800));
    const auto result = computeResult(crossConfig());
    view.selection()->setHead(3);
    view.setResult(result);
    waitUntilIdle(view);
    QAccessibleTableInterface* table = accessible(view.canvas())->tableInterface();
    ASSERT_NE(table, nullptr);
    ASSERT_EQ(table->rowCount(), result->attention.queryCount());
    ASSERT_EQ(table->columnCount(), result->attention.keyCount());
    EXPECT_EQ(table->rowDescription(2), token(result->queryLabels, 2));
    EXPECT_EQ(table->columnDescription(5), token(result->keyLabels, 5));
    const QString name = cellName(*table, 2, 5);
    EXPECT_TRUE(name.startsWith(QStringLiteral("Head 4, A_"))) << name.toStdString();
    EXPECT_TRUE(name.contains(QStringLiteral("«%1»").arg(token(result->queryLabels, 2)))) << name.toStdString();
    EXPECT_TRUE(name.contains(QStringLiteral("«%1»").arg(token(result->keyLabels, 5)))) << name.toStdString();
    EXPECT_TRUE(name.contains(preciseNumber(result->attention.heads[3].attention(2, 5)))) << name.toStdString();
    // The description is the scaled score the weight came from.
    EXPECT_TRUE(table->cellAt(2, 5)->text(QAccessible::Description).contains(preciseNumber(result->attention.heads[3].scores(2, 5))));
}

TEST(ViewTables, MatricesArrowKeyAnnouncesTheNewCell)
{
    MatricesView view(nullptr);
    showAt(view, QSize(1300, 800));
    view.setResult(computeResult(crossConfig()));
    waitUntilIdle(view);
    view.selection()->setCell(1, 1);
    view.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&view));
    view.canvas()->setFocus();
    ASSERT_TRUE(view.canvas()->hasFocus());
    QAccessibleTableInterface* table = accessible(view.canvas())->tableInterface();
    ASSERT_NE(table, nullptr);
    AccessibilityEvents events;
    QTest::keyClick(view.canvas(), Qt::Key_Down);
    EXPECT_EQ(view.selection()->queryRow(), 2);
    const auto focus = events.of(QAccessible::Focus, view.canvas());
    ASSERT_FALSE(focus.empty()) << "no focus event for the new cell";
    EXPECT_EQ(focus.back().child, 2 * table->columnCount() + 1);
    EXPECT_EQ(focus.back().name, cellName(*table, 2, 1));
}

TEST(ViewTables, FactoredReadsWiFromItsFactorsAndTheScoresBothWays)
{
    const auto result = computeResult(selfConfig());
    FactoredView view;
    showAt(view, QSize(1400, 900));
    view.setResult(result);
    view.setSelectedHead(1);
    ASSERT_TRUE(view.model() && view.model()->valid());
    QAccessibleTableInterface* product = accessible(view.factorProduct())->tableInterface();
    ASSERT_NE(product, nullptr);
    const Index d_model = result->config.d_model;
    ASSERT_EQ(product->rowCount(), d_model);
    ASSERT_EQ(product->columnCount(), d_model);
    // W_1 = W_1^Q (W_1^K)^T from the fused weights' head-1 columns, formed densely here.
    const Index d_k = d_model / result->config.headCount;
    const MatrixD queryColumns = result->weights->queryProjection.middleCols(d_k, d_k).cast<double>();
    const MatrixD keyColumns = result->weights->keyProjection.middleCols(d_k, d_k).cast<double>();
    const MatrixD dense = queryColumns * keyColumns.transpose();
    for (const auto& [row, column] : {std::pair<int, int>{0, 0}, {7, 40}, {63, 1}}) {
        const QString name = cellName(*product, row, column);
        EXPECT_TRUE(name.startsWith(QStringLiteral("W_2 [%1, %2]: ").arg(row).arg(column))) << name.toStdString();
        const double read = name.section(QStringLiteral(": "), 1).replace(QChar(0x2212), QLatin1Char('-')).toDouble();
        EXPECT_NEAR(read, dense(row, column), 1e-3 * (1 + std::abs(dense(row, column)))) << name.toStdString();
    }
    ASSERT_TRUE(QTest::qWaitFor([&] { return view.model()->scoresReady; }, 10000));
    QAccessibleTableInterface* scores = nullptr;  // the canvas whose table is the scores both ways
    for (FigureCanvas* canvas : view.findChildren<FigureCanvas*>())
        if (QAccessible::queryAccessibleInterface(canvas)->text(QAccessible::Name).startsWith(QStringLiteral("Scores")))
            scores = QAccessible::queryAccessibleInterface(canvas)->tableInterface();
    ASSERT_NE(scores, nullptr);
    EXPECT_EQ(scores->rowCount(), result->attention.queryCount());
    EXPECT_EQ(scores->columnDescription(2), token(result->keyLabels, 2));
    const QString both = cellName(*scores, 1, 2);
    EXPECT_TRUE(both.contains(preciseNumber(view.model()->scores.full(1, 2)))) << both.toStdString();
    EXPECT_TRUE(both.contains(preciseNumber(view.model()->scores.factored(1, 2)))) << both.toStdString();
}

TEST(ViewTables, LongLayerDetailReadsTheExactRegionAtItsPositions)
{
    const qkv::Config config = longConfig(600, 64, 4);
    const auto streamed = qkv::compute(qkv::prepareCompute(config, {}, qkv::streamedPlan({}, 64)));
    ASSERT_TRUE(streamed.ok());
    const auto held = computeResult(config);
    HeadSelection selection;
    LongLayerDetail detail(&selection);
    showAt(detail, QSize(1400, 350));
    selection.setHead(1);
    selection.setCell(300, 250);
    detail.setResult(streamed.value());
    waitUntilIdle(detail);
    ASSERT_NE(detail.shownRegion(), nullptr) << detail.regionError().toStdString();
    const RegionBounds& b = detail.shownRegion()->bounds;
    QAccessibleTableInterface* table = accessible(&detail)->tableInterface();
    ASSERT_NE(table, nullptr);
    ASSERT_EQ(table->rowCount(), b.rows());
    ASSERT_EQ(table->columnCount(), b.columns());
    EXPECT_EQ(table->rowDescription(0), QStringLiteral("%1 (position %2)").arg(token(held->queryLabels, b.firstRow)).arg(b.firstRow));
    EXPECT_EQ(table->columnDescription(1),
              QStringLiteral("%1 (position %2)").arg(token(held->keyLabels, b.firstColumn + 1)).arg(b.firstColumn + 1));
    // The selected cell is the table's current one.
    QList<QAccessibleInterface*> current = table->selectedCells();
    ASSERT_EQ(current.size(), 1);
    EXPECT_EQ(current.front()->tableCellInterface()->rowIndex(), 300 - b.firstRow);
    EXPECT_EQ(current.front()->tableCellInterface()->columnIndex(), 250 - b.firstColumn);
    const QString name = current.front()->text(QAccessible::Name);
    EXPECT_TRUE(name.startsWith(QStringLiteral("Head 2, "))) << name.toStdString();
    EXPECT_TRUE(name.contains(QStringLiteral("query 300 “%1”").arg(token(held->queryLabels, 300)))) << name.toStdString();
    EXPECT_TRUE(name.contains(QStringLiteral("key 250 “%1”").arg(token(held->keyLabels, 250)))) << name.toStdString();
    // The weight as the held (not streamed) layer has it.
    const QString weight = name.section(QStringLiteral("weight "), 1).section(QLatin1Char(' '), 0, 0);
    EXPECT_NEAR(weight.toDouble(), held->attention.heads[1].attention(300, 250), 1e-4) << name.toStdString();
}

TEST(ViewTables, PooledBlockSentenceHasTheBlocksMeanAndLargest)
{
    const auto streamed = qkv::compute(qkv::prepareCompute(longConfig(300, 64, 4), {}, qkv::streamedPlan({}, 16)));
    ASSERT_TRUE(streamed.ok());
    const qkv::Result& r = *streamed.value();
    const qkv::PooledAttention& pooled = r.streamedHeads[2].pooled;
    const QString sentence = pooledCellSentence(r, 2, 3, 4, {pooled.rowEdges[3], pooled.rowEdges[4]},
                                                {pooled.columnEdges[4], pooled.columnEdges[5]});
    EXPECT_TRUE(sentence.startsWith(QStringLiteral("Head 3, queries %1–%2, keys %3–%4: ")
                                        .arg(pooled.rowEdges[3])
                                        .arg(pooled.rowEdges[4] - 1)
                                        .arg(pooled.columnEdges[4])
                                        .arg(pooled.columnEdges[5] - 1)))
        << sentence.toStdString();
    EXPECT_TRUE(sentence.contains(QStringLiteral("mean weight %1").arg(pooled.mean(3, 4), 0, 'g', 4))) << sentence.toStdString();
    EXPECT_TRUE(sentence.contains(QStringLiteral("largest weight %1").arg(pooled.max(3, 4), 0, 'g', 4))) << sentence.toStdString();
}

TEST(ViewTables, ModelGridIsLayersByHeads)
{
    ASSERT_TRUE(bertModel());
    HeadSelection selection;
    auto* runs = new WholeModelRuns(&selection);
    ModelGridView view(&selection, runs);
    view.resize(1300, 800);
    auto result = std::make_shared<Result>();
    result->config.sourceText = "d [MASK] super / [MASK]";
    result->wholeModel = bertModel();
    result->wholeModelLayer = 1;
    runs->setResult(result);
    view.setResult(result);
    view.show();
    ASSERT_TRUE(QTest::qWaitFor([&] { return runs->overview() && !runs->isBusy(); }, 20000));
    const ModelOverview& overview = *runs->overview();
    for (FigureCanvas* canvas : {view.gridCanvas(), view.statisticsCanvas()}) {
        QAccessibleTableInterface* table = accessible(canvas)->tableInterface();
        ASSERT_NE(table, nullptr);
        ASSERT_EQ(table->rowCount(), overview.layerCount());
        ASSERT_EQ(table->columnCount(), overview.layer(0).attention.headCount());
        EXPECT_EQ(table->columnDescription(1), QStringLiteral("Head 2"));
        EXPECT_TRUE(table->rowDescription(1).startsWith(QStringLiteral("Layer "))) << table->rowDescription(1).toStdString();
        const QString name = cellName(*table, 1, 2);
        EXPECT_TRUE(name.contains(modelHeadName(overview.layer(1), 2))) << name.toStdString();
        for (int s = 0; s < kModelStatisticCount; ++s)  // the four statistics the figures colour
            EXPECT_TRUE(name.contains(statisticTitle(static_cast<ModelStatistic>(s)))) << name.toStdString();
    }
}

TEST(ViewTables, GenerationIsGeneratedTokensByHeads)
{
    const std::shared_ptr<const PretrainedModel> model = bertModel();
    ASSERT_TRUE(model);
    GenerationAttention attention;
    showAt(attention, QSize(600, 400));
    const QStringList prompt{QStringLiteral("the"), QStringLiteral("cat")};
    attention.begin(*model, prompt, 2, {});
    const Index layers = attention.layerCount(), heads = attention.headCount();
    ASSERT_GT(layers * heads, 0);
    // One generated token: every head's row over the 2 prompt keys, head i weighing key i % 2 most.
    std::vector<MatrixF> rows;
    for (Index l = 0; l < layers; ++l) {
        MatrixF row(heads, 2);
        for (Index i = 0; i < heads; ++i) row.row(i) << (i % 2 == 0 ? 0.8f : 0.3f), (i % 2 == 0 ? 0.2f : 0.7f);
        rows.push_back(row);
    }
    attention.addToken(QStringLiteral("sat"), rows);
    QAccessibleTableInterface* table = accessible(&attention)->tableInterface();
    ASSERT_NE(table, nullptr);
    ASSERT_EQ(table->rowCount(), 1);
    ASSERT_EQ(table->columnCount(), layers * heads);
    EXPECT_EQ(table->rowDescription(0), QStringLiteral("«sat» (position 2)"));
    const QString first = cellName(*table, 0, 0), second = cellName(*table, 0, 1);
    EXPECT_TRUE(first.contains(QStringLiteral("largest weight 0.800 on key «the» (position 0)"))) << first.toStdString();
    EXPECT_TRUE(second.contains(QStringLiteral("largest weight 0.700 on key «cat» (position 1)"))) << second.toStdString();
}

}  // namespace qkv::ui::testing
