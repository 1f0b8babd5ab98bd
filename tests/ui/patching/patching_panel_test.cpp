// The Patching page (ui/patching/patching_panel.hpp) on the demo model with the guide's prompts:
// its grids are core's numbers (core/pipeline/patching.hpp run here on its own), A or B alone
// computes no patched run, Stop leaves the layers finished, core's refusals are said in words,
// a head's cell opens its two maps, and the figures draw.

#include <QAccessible>
#include <QApplication>
#include <QPushButton>
#include <QTest>

#include <set>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>

#include <cmath>

#include "core/pipeline/pretrained_run.hpp"
#include "tests/ui/patching/patching_test_support.hpp"
#include "tests/ui/support/text_probe.hpp"
#include "tests/ui/support/wait_until.hpp"
#include "ui/figure_registry/figure_registry.hpp"
#include "ui/patching/head_maps_dialog.hpp"
#include "ui/patching/patch_grid_canvas.hpp"
#include "ui/patching/patching_panel.hpp"

namespace qkv::ui::testing {
namespace {

class PatchingPanelTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        overview = demoOverview();
        ASSERT_TRUE(overview);
        panel = std::make_unique<PatchingPanel>();
        panel->resize(1200, 700);
        panel->show();
        panel->setOverview(overview);
    }
    // Types the corrupted prompt and waits for the page to finish.
    bool patch(const QString& corrupt)
    {
        const int before = panel->patchingRunsStarted();
        panel->setCorruptText(corrupt);
        return panel->patchingRunsStarted() == before + 1 && waitUntil([&] { return !panel->isRunning(); }) &&
               waitUntil([&] { return !panel->stopButton()->isEnabled(); });
    }
    // The grids core gives for the same prompts and tokens, computed here on their own.
    PatchingGrids coreGrids(std::int32_t answer, std::int32_t wrong) const
    {
        const PretrainedModel& model = *demoModel();
        Expected<ModelSentences> clean = modelSentences(model, "", kClean);
        Expected<ModelSentences> corrupt = modelSentences(model, "", kCorrupt);
        EXPECT_TRUE(clean && corrupt);
        Expected<PatchingRuns> runs = patchingRuns(model, clean->tokens.ids, corrupt->tokens.ids);
        EXPECT_TRUE(runs) << runs.error();
        Expected<PatchingReadouts> readouts = patchingReadouts(model, *runs);
        EXPECT_TRUE(readouts) << readouts.error();
        Expected<PatchingGrids> grids = patchingGrids(model, *readouts, answer, wrong);
        EXPECT_TRUE(grids) << grids.error();
        return *grids;
    }
    static void expectGridsEqual(const std::vector<std::vector<double>>& core, const MatrixD& shown)
    {
        ASSERT_EQ(static_cast<Index>(core.size()), shown.rows());
        for (std::size_t l = 0; l < core.size(); ++l) {
            ASSERT_EQ(static_cast<Index>(core[l].size()), shown.cols());
            for (std::size_t c = 0; c < core[l].size(); ++c)
                EXPECT_EQ(core[l][c], shown(static_cast<Index>(l), static_cast<Index>(c))) << l << ", " << c;
        }
    }

    std::shared_ptr<const ModelOverview> overview;
    std::unique_ptr<PatchingPanel> panel;
};

TEST_F(PatchingPanelTest, TheGridsAreCoresNumbersForTheGuidesPrompts)
{
    ASSERT_TRUE(patch(QString::fromLatin1(kCorrupt)));
    ASSERT_TRUE(panel->grids()) << panel->statusLabel()->text().toStdString();
    // The defaults: each run's top-1 at the last position, the clean run answering "e", the
    // corrupted one "f" (the demo model copies the token after the earlier "d").
    EXPECT_EQ(panel->answerEdit()->text(), QStringLiteral(" e"));
    EXPECT_EQ(panel->wrongEdit()->text(), QStringLiteral(" f"));
    const PatchingGrids& shown = *panel->grids();
    EXPECT_EQ(shown.answer, panel->prompts()->cleanTop);
    EXPECT_EQ(shown.wrong, panel->prompts()->corruptTop);
    const PatchingGrids core = coreGrids(shown.answer, shown.wrong);
    EXPECT_EQ(core.cleanDifference, shown.cleanDifference);
    EXPECT_EQ(core.corruptDifference, shown.corruptDifference);
    ASSERT_TRUE(panel->headsCanvas()->data());
    ASSERT_TRUE(panel->residualCanvas()->data());
    expectGridsEqual(core.heads, panel->headsCanvas()->data()->values);
    expectGridsEqual(core.residual, panel->residualCanvas()->data()->values);
    // Position 4 is the token that differs, and is marked.
    const std::vector<bool>& marked = panel->residualCanvas()->data()->markedColumns;
    ASSERT_EQ(marked.size(), 9u);
    for (std::size_t p = 0; p < marked.size(); ++p) EXPECT_EQ(marked[p], p == 4) << p;
    EXPECT_TRUE(panel->summaryLabel()->text().startsWith(QStringLiteral("Heads: ")));
}

TEST_F(PatchingPanelTest, ChangingTheAnswerRecomputesOnlyTheMetric)
{
    ASSERT_TRUE(patch(QString::fromLatin1(kCorrupt)));
    ASSERT_TRUE(panel->grids());
    const int runs = panel->patchingRunsStarted();
    const auto readouts = panel->readouts();
    const std::int32_t before = panel->grids()->answer;
    panel->answerEdit()->setText(QStringLiteral(" g"));
    emit panel->answerEdit()->editingFinished();
    ASSERT_TRUE(panel->grids()) << panel->statusLabel()->text().toStdString();
    EXPECT_NE(panel->grids()->answer, before);
    EXPECT_EQ(panel->patchingRunsStarted(), runs) << "no patched run for a new A";
    EXPECT_EQ(panel->readouts(), readouts) << "the same readouts, read again";
    EXPECT_FALSE(panel->isRunning());
    const PatchingGrids core = coreGrids(panel->grids()->answer, panel->grids()->wrong);
    expectGridsEqual(core.heads, panel->headsCanvas()->data()->values);
}

TEST_F(PatchingPanelTest, StopLeavesTheLayersFinished)
{
    const Index heads = demoModel()->layersInModelOrder.front().headCount;
    panel->setStopAfter(heads + 9 + 2);  // layer 0 whole, two patches into layer 1
    ASSERT_TRUE(patch(QString::fromLatin1(kCorrupt)));
    EXPECT_TRUE(panel->stopped());
    ASSERT_TRUE(panel->grids()) << panel->statusLabel()->text().toStdString();
    EXPECT_TRUE(panel->statusLabel()->text().startsWith(QStringLiteral("Stopped after"))) << panel->statusLabel()->text().toStdString();
    const MatrixD& values = panel->headsCanvas()->data()->values;
    ASSERT_EQ(values.rows(), 2);
    for (Index i = 0; i < values.cols(); ++i) {
        EXPECT_TRUE(std::isfinite(values(0, i))) << "layer 0 was finished";
        EXPECT_TRUE(std::isnan(values(1, i))) << "layer 1 was not";
    }
    const PatchingGrids core = coreGrids(panel->grids()->answer, panel->grids()->wrong);
    for (Index i = 0; i < values.cols(); ++i) EXPECT_EQ(values(0, i), core.heads[0][static_cast<std::size_t>(i)]);
}

TEST_F(PatchingPanelTest, RefusalsAreSaidInPlace)
{
    ASSERT_TRUE(patch(QStringLiteral("a b c d f a b c d e")));
    EXPECT_FALSE(panel->grids());
    QString text = panel->statusLabel()->text();
    EXPECT_TRUE(text.contains(QLatin1String("9")) && text.contains(QLatin1String("10"))) << text.toStdString();
    EXPECT_TRUE(panel->statusLabel()->isVisible());

    ASSERT_TRUE(patch(QString::fromLatin1(kCorrupt)));
    ASSERT_TRUE(panel->grids());
    panel->answerEdit()->setText(QStringLiteral(" e f"));
    emit panel->answerEdit()->editingFinished();
    EXPECT_FALSE(panel->grids());
    text = panel->statusLabel()->text();
    EXPECT_TRUE(text.contains(QLatin1String("one token"))) << text.toStdString();

    ASSERT_TRUE(patch(QString::fromLatin1(kClean)));  // the same prompt: LD(P) = LD(P')
    EXPECT_FALSE(panel->grids());
    text = panel->statusLabel()->text();
    EXPECT_FALSE(text.isEmpty());
    EXPECT_TRUE(text.contains(QLatin1String("same"))) << text.toStdString();
}

TEST(PatchingRefusals, AnEncoderOnlyModelIsRefusedInWords)
{
    Expected<PretrainedModel> bert = openPretrainedModel(std::string(qkv::testDataDir()) + "/pretrained/bert");
    ASSERT_TRUE(bert) << bert.error();
    ModelOverviewRequest request;
    request.source = "d [MASK] super / [MASK]";
    Expected<ModelOverview> overview = computeModelOverview(std::make_shared<const PretrainedModel>(std::move(*bert)), request);
    ASSERT_TRUE(overview) << overview.error();
    PatchingPanel panel;
    panel.show();
    panel.setOverview(std::make_shared<const ModelOverview>(std::move(*overview)));
    panel.setCorruptText(QStringLiteral("d [MASK] super / d"));
    ASSERT_TRUE(waitUntil([&] { return !panel.isRunning() && !panel.stopButton()->isEnabled(); }));
    EXPECT_FALSE(panel.grids());
    EXPECT_TRUE(panel.statusLabel()->text().contains(QLatin1String("encoder-only"))) << panel.statusLabel()->text().toStdString();
}

TEST_F(PatchingPanelTest, AHeadsCellOpensItsMapsInBothRuns)
{
    ASSERT_TRUE(patch(QString::fromLatin1(kCorrupt)));
    ASSERT_TRUE(panel->grids());
    QApplication::processEvents();
    const QRectF cell = panel->headsCanvas()->cellRect(1, 0);
    ASSERT_TRUE(cell.isValid());
    emit panel->headsCanvas()->clicked(cell.center());
    auto* dialog = panel->findChild<HeadMapsDialog*>();
    ASSERT_NE(dialog, nullptr);
    EXPECT_TRUE(dialog->windowTitle().contains(QLatin1String("1.1"))) << dialog->windowTitle().toStdString();
    EXPECT_NE(dialog->cleanCanvas(), dialog->corruptCanvas());
    dialog->close();
}

TEST_F(PatchingPanelTest, TheGridsReadAsTablesAndTheFiguresDraw)
{
    ASSERT_TRUE(patch(QString::fromLatin1(kCorrupt)));
    ASSERT_TRUE(panel->grids());
    QAccessibleInterface* table = QAccessible::queryAccessibleInterface(panel->headsCanvas());
    ASSERT_NE(table, nullptr);
    ASSERT_NE(table->tableInterface(), nullptr);
    EXPECT_EQ(table->tableInterface()->rowCount(), 2);
    EXPECT_EQ(table->tableInterface()->columnCount(), 4);
    QAccessibleInterface* cell = table->tableInterface()->cellAt(1, 0);
    ASSERT_NE(cell, nullptr);
    EXPECT_TRUE(cell->text(QAccessible::Name).contains(QLatin1String("recovers"))) << cell->text(QAccessible::Name).toStdString();
    const QString tip = panel->headsCanvas()->toolTipAt(panel->headsCanvas()->cellRect(1, 0).center());
    EXPECT_TRUE(tip.contains(QStringLiteral("recovers %1").arg(panel->grids()->heads[1][0], 0, 'f', 2))) << tip.toStdString();
    FigureInput input;
    input.result = std::make_shared<Result>();
    input.overview = overview;
    for (const char* name : {"patching-heads", "patching-residual", "logit-lens"}) {
        const Figure* figure = findFigure(QString::fromLatin1(name));
        ASSERT_NE(figure, nullptr) << name;
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
        EXPECT_GT(inked, image.width() * image.height() / 100) << name;
    }
    // Another sentence's overview: the patching figures say in place what they need.
    input.overview = demoOverview("a b c d e f g");
    TextProbe probe(QSize(720, 520));
    QPainter painter(&probe);
    findFigure(QStringLiteral("patching-heads"))->paint(painter, QRectF(0, 0, 720, 520), input);
    painter.end();
    EXPECT_TRUE(probe.strings().join(QLatin1Char(' ')).contains(QLatin1String("corrupted prompt")))
        << probe.strings().join(QLatin1Char(' ')).toStdString();
}

TEST_F(PatchingPanelTest, AHiddenPageDefersANewSentenceUntilShown)
{
    ASSERT_TRUE(patch(QString::fromLatin1(kCorrupt)));
    const int runs = panel->patchingRunsStarted();
    panel->hide();
    panel->setOverview(demoOverview("a b c d e a b c e"));
    EXPECT_EQ(panel->patchingRunsStarted(), runs) << "nothing runs for a hidden page";
    EXPECT_FALSE(panel->grids());
    panel->show();
    EXPECT_EQ(panel->patchingRunsStarted(), runs + 1);
    ASSERT_TRUE(waitUntil([&] { return !panel->isRunning() && !panel->stopButton()->isEnabled(); }));
    EXPECT_TRUE(panel->grids()) << panel->statusLabel()->text().toStdString();
}

TEST_F(PatchingPanelTest, TabGoesThroughEveryControlAndEachHasAName)
{
    ASSERT_TRUE(patch(QString::fromLatin1(kCorrupt)));
    QApplication::setActiveWindow(panel.get());
    std::set<QWidget*> stops;
    for (QWidget* w : panel->findChildren<QWidget*>())
        if (w->isVisible() && w->isEnabled() && (w->focusPolicy() & Qt::TabFocus)) {
            stops.insert(w);
            EXPECT_FALSE(w->accessibleName().isEmpty()) << w->metaObject()->className();
        }
    ASSERT_GE(stops.size(), 5u);
    panel->corruptEdit()->setFocus(Qt::TabFocusReason);
    std::set<QWidget*> visited{panel->corruptEdit()};
    for (std::size_t press = 0; press < 2 * stops.size() + 4; ++press) {
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        if (QApplication::focusWidget()) visited.insert(QApplication::focusWidget());
    }
    for (QWidget* w : stops) EXPECT_TRUE(visited.count(w)) << w->accessibleName().toStdString();
}

}  // namespace
}  // namespace qkv::ui::testing
