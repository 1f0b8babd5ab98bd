// The Circuits tab (ui/circuits) on the demo model (docs/demo-model: two layers of four heads,
// tied readout) on its README's sentence, and on the synthetic BERT fixture, whose masked-LM
// readout is not the direct path: what it shows is core's circuits (core/circuits), a click on
// the copying-score grid or the heads map opens the head, the heads map's axes change, and the
// three figures draw.

#include <gtest/gtest.h>

#include <QAccessible>
#include <QAccessibleTableInterface>
#include <QComboBox>
#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>

#include <cmath>
#include <memory>

#include "core/checkpoint/checkpoint.hpp"
#include "core/circuits/head_circuits.hpp"
#include "core/pipeline/model_overview.hpp"
#include "core/pipeline/pretrained_run.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "support/test_paths.hpp"
#include "tests/ui/support/text_probe.hpp"
#include "ui/circuits/circuit_store.hpp"
#include "ui/circuits/circuits_view.hpp"
#include "ui/circuits/copying_scores_panel.hpp"
#include "ui/circuits/head_circuits_panel.hpp"
#include "ui/circuits/heads_map_panel.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figure_registry/figure_registry.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"

namespace qkv::ui::testing {
namespace {

constexpr const char* kSentence = "a b c d e f g h a b c d e f g";

std::shared_ptr<const PretrainedModel> openModel(const std::string& folder)
{
    Expected<PretrainedModel> opened = openPretrainedModel(folder);
    EXPECT_TRUE(opened) << opened.error();
    return opened ? std::make_shared<const PretrainedModel>(std::move(*opened)) : nullptr;
}

std::shared_ptr<const PretrainedModel> demoModel()
{
    static const auto model = openModel(std::string(qkv::sourceDir()) + "/docs/demo-model");
    return model;
}

std::shared_ptr<const PretrainedModel> bertModel()
{
    static const auto model = openModel(std::string(qkv::testDataDir()) + "/pretrained/bert");
    return model;
}

class CircuitsViewTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        clearCircuitStore();
        runs = new WholeModelRuns(&selection);
        view = std::make_unique<CircuitsView>(&selection, runs);
        view->resize(1100, 760);
    }

    void show(const std::shared_ptr<const PretrainedModel>& model, Index shownLayer, bool causal = true)
    {
        ASSERT_TRUE(model);
        auto result = std::make_shared<Result>();
        // The BERT fixture's vocabulary has no letters: its own sentence (tests/data/pretrained/bert).
        if (causal)
            result->config.targetText = kSentence;
        else
            result->config.sourceText = "d [MASK] super / [MASK]";
        result->wholeModel = model;
        result->wholeModelLayer = shownLayer;
        runs->setResult(result);
        view->setResult(result);
        view->show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(view.get()));
    }

    // The overview, W_U W_E and every copying score, and the head's tables and spectrum.
    bool waitForCircuits()
    {
        return QTest::qWaitFor(
            [this] {
                return runs->overview() && !runs->isBusy() && view->copyingScores() &&
                       !view->headPanel()->isComputing() && view->headPanel()->spectrum();
            },
            30000);
    }

    HeadSelection selection;
    WholeModelRuns* runs = nullptr;  // owned by the selection
    std::unique_ptr<CircuitsView> view;
};

TEST_F(CircuitsViewTest, ACausalModelWithAReadoutShowsCoresCircuits)
{
    show(demoModel(), 1);
    selection.setHead(2);
    ASSERT_TRUE(waitForCircuits());
    EXPECT_EQ(view->placeholderText(), QString());
    EXPECT_EQ(view->pages()->count(), 3);
    const CircuitHead head{1, 2};
    EXPECT_EQ(view->head(), head);
    const ModelOverview& overview = *runs->overview();
    const std::vector<std::int32_t> ids =
        distinctTokenIds(layerQueryTokens(*overview.model, overview.sentences, overview.layer(1)).ids());
    // "a", then "·b" to "·h" and "·a": GPT-2 keeps the space before a word in its token.
    EXPECT_EQ(ids.size(), 9u);
    const Index k = view->headPanel()->topBox()->value();
    for (const CircuitSide side : {CircuitSide::QK, CircuitSide::OV}) {
        Expected<std::vector<TokenCircuit>> expected = tokenCircuits(*overview.model, head, side, ids, k);
        ASSERT_TRUE(expected) << expected.error();
        const QTableWidget* table =
            side == CircuitSide::QK ? view->headPanel()->qkTable() : view->headPanel()->ovTable();
        ASSERT_EQ(table->rowCount(), static_cast<int>(ids.size()));
        ASSERT_EQ(table->columnCount(), static_cast<int>(k) + 1);
        for (int r = 0; r < table->rowCount(); ++r) {
            const TokenCircuit& circuit = (*expected)[static_cast<std::size_t>(r)];
            EXPECT_EQ(table->item(r, 0)->text(), QString::fromStdString(circuit.token));
            const QString best = table->item(r, 1)->text();
            EXPECT_TRUE(best.startsWith(QString::fromStdString(circuit.top[0].token))) << best.toStdString();
            EXPECT_TRUE(best.endsWith(QString::number(std::abs(circuit.top[0].value), 'g', 3))) << best.toStdString();
        }
    }
    Expected<CircuitBasis> basis = circuitBasis(*overview.model);
    ASSERT_TRUE(basis) << basis.error();
    Expected<HeadSpectrum> spectrum = headSpectrum(*overview.model, *basis, head);
    ASSERT_TRUE(spectrum) << spectrum.error();
    EXPECT_NEAR(view->headPanel()->spectrum()->copyingScore, spectrum->copyingScore, 1e-9);
    Expected<MatrixD> grid = copyingScoreGrid(*overview.model, *basis);
    ASSERT_TRUE(grid) << grid.error();
    ASSERT_EQ(view->copyingScores()->rows(), grid->rows());
    EXPECT_TRUE(view->copyingScores()->isApprox(*grid, 1e-9));
}

TEST_F(CircuitsViewTest, AModelWithoutADirectPathReadoutSaysWhyInPlace)
{
    ASSERT_TRUE(bertModel());
    const std::string reason = noCircuitsReason(*bertModel());
    ASSERT_FALSE(reason.empty()) << "BERT's masked-LM readout is not the direct path";
    show(bertModel(), 0, false);
    EXPECT_TRUE(view->placeholderText().contains(QString::fromStdString(reason)))
        << view->placeholderText().toStdString();
    EXPECT_FALSE(view->pages()->isVisible());
    const Figure* figure = findFigure(QStringLiteral("circuit-copying-scores"));
    ASSERT_NE(figure, nullptr);
    FigureInput input;
    input.result = view->result();
    ASSERT_TRUE(QTest::qWaitFor([this] { return runs->overview() != nullptr; }, 20000));
    input.overview = runs->overview();
    EXPECT_TRUE(figure->whyUnavailable(input).contains(QString::fromStdString(reason)));
}

TEST_F(CircuitsViewTest, AClickOnTheCopyingGridOpensThatHead)
{
    show(demoModel(), 1);
    ASSERT_TRUE(waitForCircuits());
    view->pages()->setCurrentWidget(view->copyingPanel());
    QSignalSpy opened(view.get(), &CircuitsView::openLayerRequested);
    // A head of the layer shown: the shared selection takes it.
    QPoint at = view->copyingPanel()->cellCenter({1, 3});
    ASSERT_GE(at.x(), 0);
    QTest::mouseClick(view->copyingPanel()->canvas(), Qt::LeftButton, {}, at);
    EXPECT_EQ(view->head(), (CircuitHead{1, 3}));
    EXPECT_EQ(selection.head(), 3);
    EXPECT_EQ(view->pages()->currentWidget(), view->headPanel());
    EXPECT_EQ(opened.count(), 0);
    // Another layer's: shown here, and the window is asked to open that layer.
    view->pages()->setCurrentWidget(view->copyingPanel());
    at = view->copyingPanel()->cellCenter({0, 1});
    QTest::mouseClick(view->copyingPanel()->canvas(), Qt::LeftButton, {}, at);
    EXPECT_EQ(view->head(), (CircuitHead{0, 1}));
    ASSERT_EQ(opened.count(), 1);
    EXPECT_EQ(opened.front().at(2).toInt(), 1);
    EXPECT_TRUE(QTest::qWaitFor([this] { return !view->headPanel()->isComputing(); }, 20000));
    EXPECT_EQ(view->headPanel()->head(), (CircuitHead{0, 1}));
    // Until the window opens that layer, the model's runs come and go without taking it back.
    emit runs->busyChanged(false);
    EXPECT_EQ(view->head(), (CircuitHead{0, 1}));
    // The shared selection changing again is followed.
    selection.setHead(2);
    EXPECT_EQ(view->head(), (CircuitHead{1, 2}));
}

TEST_F(CircuitsViewTest, AScreenReaderReadsTheCopyingGridAsATable)
{
    show(demoModel(), 1);
    ASSERT_TRUE(waitForCircuits());
    view->pages()->setCurrentWidget(view->copyingPanel());
    QAccessibleInterface* grid = QAccessible::queryAccessibleInterface(view->copyingPanel()->canvas());
    ASSERT_NE(grid, nullptr);
    EXPECT_EQ(grid->role(), QAccessible::Table);
    QAccessibleTableInterface* table = grid->tableInterface();
    ASSERT_NE(table, nullptr);
    const std::shared_ptr<const qkv::MatrixD> scores = view->copyingScores();
    ASSERT_TRUE(scores);
    EXPECT_EQ(table->rowCount(), scores->rows());
    EXPECT_EQ(table->columnCount(), scores->cols());
    EXPECT_EQ(table->columnDescription(2), QStringLiteral("Head 3"));
    // Layer 1's head 3 is the demo model's one head that does not copy (core's score, in words).
    QAccessibleInterface* cell = table->cellAt(1, 2);
    ASSERT_NE(cell, nullptr);
    const QString name = cell->text(QAccessible::Name);
    EXPECT_TRUE(name.startsWith(QStringLiteral("Head 1.3"))) << name.toStdString();
    EXPECT_TRUE(name.contains(QStringLiteral("neither copies nor suppresses"))) << name.toStdString();
    EXPECT_TRUE(name.contains(QString::number((*scores)(1, 2), 'f', 2).replace(QLatin1Char('-'), QChar(0x2212))) ||
                name.contains(QString::number((*scores)(1, 2), 'f', 2)))
        << name.toStdString();
}

TEST_F(CircuitsViewTest, TheHeadsMapsAxesChangeAndAPointOpensItsHead)
{
    show(demoModel(), 1);
    ASSERT_TRUE(waitForCircuits());
    view->pages()->setCurrentWidget(view->headsMapPanel());
    HeadsMapPanel* map = view->headsMapPanel();
    map->xBox()->setCurrentIndex(map->xBox()->findText(QStringLiteral("copying")));
    map->yBox()->setCurrentIndex(map->yBox()->findText(QStringLiteral("entropy")));
    EXPECT_EQ(map->axes(), (HeadsMapAxes{HeadsMapAxis::Copying, HeadsMapAxis::Entropy}));
    EXPECT_EQ(chosenHeadsMapAxes(), map->axes()) << "what the exported figure shows";
    const ModelOverview& overview = *runs->overview();
    ASSERT_EQ(map->data().points.size(), 8u);
    for (const HeadPoint& point : map->data().points) {
        EXPECT_DOUBLE_EQ(point.x, (*view->copyingScores())(point.head.layer, point.head.head));
        EXPECT_DOUBLE_EQ(point.y, overview.statistics.entropy(point.head.layer, point.head.head));
    }
    const QPoint at = map->pointCenter({1, 0});
    ASSERT_GE(at.x(), 0);
    EXPECT_TRUE(map->toolTipAt(at).contains(QStringLiteral("Head 1.1"))) << map->toolTipAt(at).toStdString();
    QTest::mouseClick(map->canvas(), Qt::LeftButton, {}, at);
    EXPECT_EQ(view->head(), (CircuitHead{1, 0}));
}

TEST_F(CircuitsViewTest, TheAblationAxisIsComputedOnDemand)
{
    show(demoModel(), 1);
    ASSERT_TRUE(waitForCircuits());
    HeadsMapPanel* map = view->headsMapPanel();
    map->setAxes({HeadsMapAxis::Ablation, HeadsMapAxis::Induction});
    EXPECT_TRUE(map->data().points.empty());
    map->computeAblation();
    ASSERT_TRUE(QTest::qWaitFor([map] { return !map->isRanking(); }, 30000));
    const ModelOverview& overview = *runs->overview();
    const PositionPredictions& last = overview.baselinePredictions.back();
    Expected<std::vector<HeadEffect>> effects = rankHeadsAtPosition(overview, last.position, last.top.front().id);
    ASSERT_TRUE(effects) << effects.error();
    ASSERT_EQ(map->data().points.size(), effects->size());
    for (const HeadEffect& effect : *effects) {
        for (const HeadPoint& point : map->data().points) {
            if (point.head.layer == effect.candidate.layer && point.head.head == effect.candidate.head) {
                EXPECT_DOUBLE_EQ(point.x, effect.change.change);
            }
        }
    }
}

TEST_F(CircuitsViewTest, TheFiguresDraw)
{
    show(demoModel(), 1);
    selection.setHead(1);
    ASSERT_TRUE(waitForCircuits());
    FigureInput input;
    input.result = view->result();
    input.overview = runs->overview();
    input.options.head = 1;
    for (const char* name : {"circuit-copying-scores", "circuit-eigenvalues", "heads-map"}) {
        const Figure* figure = findFigure(QString::fromLatin1(name));
        ASSERT_NE(figure, nullptr) << name;
        EXPECT_EQ(figure->view, CircuitsView::kId);
        ASSERT_EQ(figure->whyUnavailable(input), QString()) << name;
        const QSize size = figure->defaultSizeFor(input).toSize();
        QImage image(size, QImage::Format_RGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        figure->paint(painter, QRectF(QPointF(0, 0), size), input);
        painter.end();
        int inked = 0;
        for (int y = 0; y < image.height(); y += 2)
            for (int x = 0; x < image.width(); x += 2) inked += image.pixel(x, y) != qRgb(255, 255, 255);
        EXPECT_GT(inked, image.width() * image.height() / 400) << name;
        TextProbe probe(size);
        QPainter textPainter(&probe);
        figure->paint(textPainter, QRectF(QPointF(0, 0), size), input);
        textPainter.end();
        EXPECT_TRUE(probe.problems().isEmpty()) << name << ": " << probe.problems().join(" | ").toStdString();
    }
    TextProbe probe(QSize(640, 640));
    QPainter painter(&probe);
    findFigure(QStringLiteral("circuit-eigenvalues"))->paint(painter, QRectF(0, 0, 640, 640), input);
    painter.end();
    for (const char* text : {"Re λ", "Im λ", "Head 1.2: OV eigenvalues"})
        EXPECT_TRUE(probe.shows(QString::fromUtf8(text)))
            << text << " in " << probe.strings().join(" | ").toStdString();
}

}  // namespace
}  // namespace qkv::ui::testing
