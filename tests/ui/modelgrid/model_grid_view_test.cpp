// The Model tab on the synthetic BERT fixture (tests/data/pretrained/bert, made by
// make_pretrained_fixtures.py; its run.json ids are "d [MASK] super / [MASK]"): what it paints
// and says is core's overview (and PyTorch's attention maps), a click asks for the right layer and
// head, the context menu switches heads off, value-weighted mode asks for the value norms, and a
// layer without a model says what to do.

#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QPainter>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <memory>

#include "core/checkpoint/checkpoint.hpp"
#include "core/io/npy.hpp"
#include "core/pipeline/model_overview.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "support/test_paths.hpp"
#include "tests/ui/support/text_probe.hpp"
#include "tests/ui/support/untokenized_checkpoint.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figure_registry/figure_registry.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/modelgrid/model_grid_figure.hpp"
#include "ui/modelgrid/model_grid_figures.hpp"
#include "ui/modelgrid/model_grid_text.hpp"
#include "ui/modelgrid/model_grid_view.hpp"
#include "ui/render/colormap.hpp"
#include "ui/wholemodel/missing_tokenizer.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"

namespace qkv::ui::testing {
namespace {

constexpr const char* kSentence = "d [MASK] super / [MASK]";
constexpr Index kTokens = 7;  // [CLS] d [MASK] super / [MASK] [SEP]

std::string fixturePath() { return std::string(qkv::testDataDir()) + "/pretrained/bert"; }

std::shared_ptr<const PretrainedModel> bertModel()
{
    static const std::shared_ptr<const PretrainedModel> model = [] {
        Expected<Checkpoint> checkpoint = openCheckpoint(fixturePath());
        EXPECT_TRUE(checkpoint) << checkpoint.error();
        if (!checkpoint) return std::shared_ptr<const PretrainedModel>();
        Expected<PretrainedModel> loaded = loadPretrainedModel(*checkpoint);
        EXPECT_TRUE(loaded) << loaded.error();
        return loaded ? std::make_shared<const PretrainedModel>(std::move(*loaded)) : nullptr;
    }();
    return model;
}

// PyTorch's attention of layer l: 4 heads stacked, (4 n) x n.
MatrixF referenceAttention(int layer)
{
    Expected<MatrixF> map = readNpyMatrix(fixturePath() + "/attention_" + std::to_string(layer) + ".npy");
    EXPECT_TRUE(map) << map.error();
    return map ? *map : MatrixF();
}

bool sameColor(QRgb a, QRgb b, int tolerance = 2)
{
    return std::abs(qRed(a) - qRed(b)) <= tolerance && std::abs(qGreen(a) - qGreen(b)) <= tolerance &&
           std::abs(qBlue(a) - qBlue(b)) <= tolerance;
}

class ModelGridViewTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(bertModel());
        runs = new WholeModelRuns(&selection);
        view = std::make_unique<ModelGridView>(&selection, runs);
        view->resize(1300, 800);
    }

    std::shared_ptr<const Result> bertResult(Index shownLayer)
    {
        auto result = std::make_shared<Result>();
        result->config.sourceText = kSentence;
        result->wholeModel = bertModel();
        result->wholeModelLayer = shownLayer;
        return result;
    }

    void showModel(Index shownLayer = 1)
    {
        const std::shared_ptr<const Result> result = bertResult(shownLayer);
        runs->setResult(result);
        view->setResult(result);
        view->show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(view.get()));
        ASSERT_TRUE(waitForOverview());
    }

    bool waitForOverview()
    {
        return QTest::qWaitFor([this] { return runs->overview() && !runs->isBusy(); }, 20000);
    }

    const ModelOverview& overview() const { return *runs->overview(); }

    HeadSelection selection;
    WholeModelRuns* runs = nullptr;  // owned by the selection (any QObject outliving the view)
    std::unique_ptr<ModelGridView> view;
};

TEST_F(ModelGridViewTest, SaysWhatToOpenWithoutAModel)
{
    view->show();
    EXPECT_EQ(view->placeholderText(), QStringLiteral("No result yet."));
    auto generated = std::make_shared<Result>();  // weights that are no checkpoint's layer
    generated->config.sourceText = "the cat";
    runs->setResult(generated);
    view->setResult(generated);
    QCoreApplication::processEvents();
    EXPECT_TRUE(view->placeholderText().contains(QStringLiteral("File > Open Checkpoint")))
        << view->placeholderText().toStdString();
    EXPECT_TRUE(view->placeholderText().contains(runs->problem())) << view->placeholderText().toStdString();
    // The problem quotes data (a sentence, a path): it is never read as markup.
    bool found = false;
    for (const QLabel* label : view->findChildren<QLabel*>())
        if (label->text() == view->placeholderText()) {
            found = true;
            EXPECT_EQ(label->textFormat(), Qt::PlainText);
        }
    EXPECT_TRUE(found);
    const Figure* figure = findFigure(QStringLiteral("model"));
    ASSERT_NE(figure, nullptr);
    FigureInput input;
    input.result = generated;
    EXPECT_TRUE(figure->whyUnavailable(input).contains(QStringLiteral("Open Checkpoint")));
}

TEST_F(ModelGridViewTest, TheMapsArePyTorchsAttentionCellByCell)
{
    showModel();
    EXPECT_EQ(view->placeholderText(), QString());
    ASSERT_EQ(overview().layerCount(), 3);
    const QImage painted = view->gridCanvas()->grab().toImage();
    const Colormap& viridis = Colormap::get(ColormapName::Viridis);
    for (int l = 0; l < 3; ++l) {
        const MatrixF reference = referenceAttention(l);
        ASSERT_EQ(reference.rows(), 4 * kTokens);
        for (Index head : {0, 3})
            for (auto [q, k] : {std::pair<Index, Index>{0, 0}, {2, 5}, {6, 1}}) {
                const double weight = reference(head * kTokens + q, k);
                const QPoint at = view->mapCellCenter({l, head}, q, k);
                EXPECT_TRUE(sameColor(painted.pixel(at * painted.devicePixelRatio()), viridis.rgb(weight)))
                    << "layer " << l << " head " << head + 1 << " cell " << q << ", " << k;
                const QString tip = view->gridToolTipAt(at);
                EXPECT_TRUE(tip.contains(QStringLiteral("Weight: %1 %").arg(weight * 100.0, 0, 'f', 1)))
                    << tip.toStdString();
                EXPECT_TRUE(tip.contains(QStringLiteral("Head %1").arg(head + 1))) << tip.toStdString();
                EXPECT_TRUE(tip.contains(QString::fromStdString(overview().layer(l).layer.name))) << tip.toStdString();
            }
    }
    const QString tip = view->gridToolTipAt(view->mapCellCenter({1, 2}, 3, 2));
    EXPECT_TRUE(tip.contains(QStringLiteral("«super» (position 3)"))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QStringLiteral("«[MASK]» (position 2)"))) << tip.toStdString();
}

TEST_F(ModelGridViewTest, TheStatisticsAreCoresGrids)
{
    showModel();
    const QImage painted = view->statisticsCanvas()->grab().toImage();
    const Colormap& viridis = Colormap::get(ColormapName::Viridis);
    const double largestDistance = overview().statistics.meanDistance.maxCoeff();
    for (int s = 0; s < kModelStatisticCount; ++s) {
        const auto statistic = static_cast<ModelStatistic>(s);
        const MatrixD& grid = statisticGrid(overview().statistics, statistic);
        ASSERT_EQ(grid.rows(), 3);
        ASSERT_EQ(grid.cols(), 4);
        for (Index l = 0; l < 3; ++l)
            for (Index head = 0; head < 4; ++head) {
                const QPoint at = view->statisticCellCenter(statistic, {l, head});
                const QString tip = view->statisticsToolTipAt(at);
                EXPECT_TRUE(tip.contains(QStringLiteral("Layer %1 ·").arg(overview().layer(l).layer.index)))
                    << tip.toStdString();
                EXPECT_TRUE(tip.contains(QStringLiteral("Head %1").arg(head + 1))) << tip.toStdString();
                EXPECT_TRUE(tip.contains(QStringLiteral("%1: %2").arg(statisticTitle(statistic)).arg(grid(l, head), 0, 'f', 3)))
                    << tip.toStdString();
                const double t = statistic == ModelStatistic::MeanDistance ? grid(l, head) / std::max(1.0, largestDistance)
                                                                          : grid(l, head);
                EXPECT_TRUE(sameColor(painted.pixel(at * painted.devicePixelRatio()), viridis.rgb(t)))
                    << "statistic " << s << " layer " << l << " head " << head + 1;
            }
    }
}

TEST_F(ModelGridViewTest, AClickAsksToOpenThatLayerAndHead)
{
    showModel();
    std::vector<std::pair<Index, int>> requests;
    QObject::connect(view.get(), &ModelGridView::openLayerRequested, view.get(),
                     [&](std::shared_ptr<const PretrainedModel> model, const CheckpointLayer& layer, int head) {
                         EXPECT_EQ(model, bertModel());
                         requests.emplace_back(layer.index, head);
                     });
    QTest::mouseClick(view->gridCanvas(), Qt::LeftButton, {}, view->mapCellCenter({2, 3}, 1, 1));
    QTest::mouseClick(view->statisticsCanvas(), Qt::LeftButton, {},
                      view->statisticCellCenter(ModelStatistic::FirstTokenWeight, {0, 1}));
    ASSERT_EQ(requests.size(), 2u);
    EXPECT_EQ(requests[0], std::make_pair(overview().layer(2).layer.index, 3));
    EXPECT_EQ(requests[1], std::make_pair(overview().layer(0).layer.index, 1));
}

TEST_F(ModelGridViewTest, TheContextMenuSwitchesAHeadOffAndBackOn)
{
    showModel();
    const QString name = modelHeadName(overview().layer(1), 2);
    std::unique_ptr<QMenu> menu(view->makeHeadMenu({1, 2}, nullptr));
    ASSERT_TRUE(menu);
    ASSERT_FALSE(menu->actions().isEmpty());
    EXPECT_EQ(menu->actions().front()->text(), QStringLiteral("Switch head %1 off").arg(name));
    menu->actions().front()->trigger();
    EXPECT_EQ(runs->headsOff(), (std::set<ModelHead>{{1, 2}}));
    ASSERT_TRUE(waitForOverview());
    EXPECT_TRUE(overview().isAblated({1, 2}));
    EXPECT_TRUE(view->statisticsToolTipAt(view->statisticCellCenter(ModelStatistic::Entropy, {1, 2}))
                    .contains(QStringLiteral("switched off")));
    menu.reset(view->makeHeadMenu({1, 2}, nullptr));
    EXPECT_EQ(menu->actions().front()->text(), QStringLiteral("Switch head %1 back on").arg(name));
    menu->actions().front()->trigger();
    EXPECT_TRUE(runs->headsOff().empty());
}

// A session keeps the heads switched off as --ablate writes them, and a session opened before its
// layer's model is loaded gets them back when the model arrives.
TEST_F(ModelGridViewTest, TheSessionKeepsTheHeadsSwitchedOff)
{
    qkv::ViewOptions restored;
    restored.modelHeadsOff = {"1.3", "bert.encoder.layer.0.attention.1", "9.9"};  // the last one names no head
    view->restoreOptions(restored);
    EXPECT_TRUE(runs->headsOff().empty());  // no model yet
    showModel();
    EXPECT_EQ(runs->headsOff(), (std::set<ModelHead>{{0, 0}, {1, 2}}));
    EXPECT_TRUE(overview().isAblated({1, 2}));
    EXPECT_TRUE(overview().isAblated({0, 0}));
    QSignalSpy changed(view.get(), &ResultView::optionsChanged);
    runs->setHeadOff({2, 3}, true);
    EXPECT_EQ(changed.count(), 1);
    qkv::ViewOptions saved;
    view->saveOptions(saved);
    EXPECT_EQ(saved.modelHeadsOff, (std::vector<std::string>{"0.1", "1.3", "2.4"}));
}

TEST_F(ModelGridViewTest, ValueWeightedMapsAreTheValueNormsEachToItsMaximum)
{
    showModel();
    EXPECT_TRUE(overview().valueNorms.empty());  // not asked for yet
    view->setValueWeighted(true);
    ASSERT_TRUE(QTest::qWaitFor([this] { return runs->overview() && !runs->overview()->valueNorms.empty() && !runs->isBusy(); }, 20000));
    ASSERT_EQ(overview().valueNorms.size(), 3u);
    FigureOptions options;
    view->saveFigureOptions(options);
    EXPECT_TRUE(options.valueWeighted);
    QCoreApplication::processEvents();
    const QImage painted = view->gridCanvas()->grab().toImage();
    const Colormap& viridis = Colormap::get(ColormapName::Viridis);
    for (Index l : {0, 2}) {
        const MatrixF& norms = overview().valueNorms[static_cast<std::size_t>(l)].heads[1];
        const QPoint at = view->mapCellCenter({l, 1}, 4, 0);
        EXPECT_TRUE(sameColor(painted.pixel(at * painted.devicePixelRatio()), viridis.rgb(norms(4, 0) / norms.maxCoeff())))
            << "layer " << l;
        EXPECT_TRUE(view->gridToolTipAt(at).contains(QString::number(norms(4, 0), 'f', 4)));
    }
}

TEST_F(ModelGridViewTest, TheFiguresDrawTheOverviewAtAnyResolution)
{
    showModel();
    for (const QString& name : {QStringLiteral("model"), QStringLiteral("model-statistics")}) {
        const Figure* figure = findFigure(name);
        ASSERT_NE(figure, nullptr) << name.toStdString();
        EXPECT_EQ(figure->view, QLatin1String("model"));
        FigureInput input;
        input.result = bertResult(1);
        input.overview = runs->overview();
        EXPECT_EQ(figure->whyUnavailable(input), QString());
        QImage image(QSize(800, 700) * 2, QImage::Format_ARGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        painter.scale(2, 2);
        figure->paint(painter, QRectF(0, 0, 800, 700), input);
        painter.end();
        int dark = 0;
        for (int y = 0; y < image.height(); y += 3)
            for (int x = 0; x < image.width(); x += 3) dark += qGray(image.pixel(x, y)) < 128;
        EXPECT_GT(dark, 200) << name.toStdString();
    }
}

// A checkpoint folder without tokenizer files: the tab says what is missing, where, and what to
// add, never to open a model (one was just opened); a folder with them, or weights of no file,
// is not said to lack them.
TEST_F(ModelGridViewTest, ACheckpointWithoutTokenizerFilesSaysWhatToAddInPlace)
{
    QTemporaryDir folder;
    ASSERT_TRUE(folder.isValid());
    const QString weights = copyGpt2WithoutTokenizer(folder);
    ASSERT_FALSE(weights.isEmpty());
    auto layerOnly = std::make_shared<Result>();  // the layer loaded without its model
    layerOnly->config.targetText = "the cat";
    runs->setWeightsFile(weights);
    runs->setResult(layerOnly);
    view->setResult(layerOnly);
    view->show();
    QCoreApplication::processEvents();
    const QString text = view->placeholderText();
    EXPECT_TRUE(text.contains(QStringLiteral("no tokenizer files"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QDir::toNativeSeparators(folder.path()))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("vocab.json and merges.txt"))) << "GPT-2's files: " << text.toStdString();
    EXPECT_FALSE(text.contains(QStringLiteral("Open a model folder"))) << text.toStdString();
    EXPECT_EQ(runs->missingTokenizer(), text);
    EXPECT_TRUE(view->tokenizerButton()->isVisible()) << "Choose tokenizer.json… under the message";
    // A file that is no tokenizer is refused, saying why, and the message stays.
    QTemporaryDir broken;
    ASSERT_TRUE(broken.isValid());
    QFile bad(broken.filePath(QStringLiteral("tokenizer.json")));
    ASSERT_TRUE(bad.open(QIODevice::WriteOnly));
    bad.write("{\"model\": 3}");
    bad.close();
    runs->chooseTokenizer(bad.fileName());
    ASSERT_TRUE(QTest::qWaitFor([this] { return !runs->isBusy(); }, 20000));
    EXPECT_FALSE(runs->model());
    EXPECT_TRUE(runs->missingTokenizer().startsWith(QStringLiteral("The tokenizer chosen cannot be used: ")))
        << runs->missingTokenizer().toStdString();
    EXPECT_TRUE(runs->missingTokenizer().contains(QStringLiteral("vocab.json and merges.txt")));
    EXPECT_TRUE(view->tokenizerButton()->isVisible()) << "another try";
    // The model's own, chosen where it is: the whole model runs with it, and the grid replaces the message.
    runs->chooseTokenizer(QString::fromStdString(std::string(qkv::testDataDir()) + "/pretrained/gpt2/vocab.json"));
    ASSERT_TRUE(QTest::qWaitFor([this] { return runs->model() && !runs->isBusy(); }, 20000));
    ASSERT_TRUE(runs->model()->tokenizer.has_value());
    EXPECT_TRUE(runs->missingTokenizer().isEmpty());
    ASSERT_TRUE(waitForOverview()) << runs->problem().toStdString();
    EXPECT_EQ(view->placeholderText(), QString());
    EXPECT_FALSE(view->tokenizerButton()->isVisible());
    runs->setResult(layerOnly);  // the next result of the same file keeps the chosen model
    EXPECT_TRUE(runs->model());
    // A LLaMA-like config names tokenizer.json; a folder given directly is read the same way.
    QFile config(folder.filePath(QStringLiteral("config.json")));
    ASSERT_TRUE(config.open(QIODevice::WriteOnly | QIODevice::Truncate));
    config.write(R"({"model_type": "qwen3"})");
    config.close();
    EXPECT_TRUE(missingTokenizerText(folder.path()).contains(QStringLiteral("tokenizer.json")));
    // The BERT fixture's folder has vocab.txt; generated weights have no file.
    EXPECT_EQ(missingTokenizerText(QString::fromStdString(fixturePath() + "/model.safetensors")), QString());
    EXPECT_EQ(missingTokenizerText(QString()), QString());
    runs->setWeightsFile(QString());
    runs->setResult(layerOnly);
    EXPECT_FALSE(runs->model()) << "another file's result does not get that model";
    EXPECT_TRUE(runs->missingTokenizer().isEmpty());
    EXPECT_TRUE(view->placeholderText().contains(QStringLiteral("File > Open Checkpoint")));
}

// The grid names the model as config.json does, and writes each layer's tokens beside its maps
// when they are large: every token when its cells are a line high, else every k-th, and none when
// the maps are small. The row labels say a causal layer's window in a model with sliding layers.
TEST_F(ModelGridViewTest, TheMapsCarryTheirTokensWhereThereIsRoom)
{
    showModel();
    EXPECT_TRUE(modelShapeLine(overview()).startsWith(QStringLiteral("BERT, "))) << modelShapeLine(overview()).toStdString();
    FigureInput input;
    input.result = bertResult(1);
    input.overview = runs->overview();
    TextProbe probe(QSize(1000, 900));
    QPainter painter(&probe);
    paintModelGrid(painter, QRectF(0, 0, 1000, 900), input);
    painter.end();
    for (const char* token : {"[CLS]", "super", "[SEP]"})
        EXPECT_TRUE(probe.shows(QString::fromLatin1(token))) << token << " in " << probe.strings().join(" | ").toStdString();
    const QFontMetricsF metrics(QFont(), &probe);
    const ModelGridLayout large(QRectF(0, 0, 1000, 900), overview(), metrics);
    ASSERT_TRUE(large.showsTokens());
    for (int l = 0; l + 1 < large.layers(); ++l) {
        EXPECT_LE(large.keyTokenRect(l, 0).bottom(), large.thumbnail(l + 1, 0).top()) << "keys under layer " << l;
        if (large.labelsAboveRows()) EXPECT_LE(large.layerLabelRect(l).bottom(), large.thumbnail(l, 0).top());
        else EXPECT_LE(large.layerLabelRect(l).right(), large.queryTokenRect(l).left());
        EXPECT_DOUBLE_EQ(large.queryTokenRect(l).right(), large.thumbnail(l, 0).left());
    }
    const ModelGridLayout small(QRectF(0, 0, 300, 300), overview(), metrics);
    EXPECT_FALSE(small.showsTokens());
    // A narrow, tall panel: the labels go above the rows and the maps take their width.
    const ModelGridLayout narrow(QRectF(0, 0, 330, 1000), overview(), metrics);
    EXPECT_TRUE(narrow.labelsAboveRows());
    EXPECT_GT(narrow.thumbnailSide(), 60.0);
    EXPECT_LE(narrow.layerLabelRect(1).bottom(), narrow.thumbnail(1, 0).top());
    EXPECT_GE(narrow.layerLabelRect(1).top(), narrow.thumbnail(0, 0).bottom());
    EXPECT_EQ(narrow.headAt(narrow.thumbnail(1, 3).center()), (ModelHead{1, 3}));
    EXPECT_EQ(narrow.headAt(narrow.layerLabelRect(1).center()), (ModelHead{-1, -1}));
    EXPECT_EQ(small.headAt(small.thumbnail(1, 2).center()), (ModelHead{1, 2}));
    EXPECT_EQ(large.headAt(large.thumbnail(1, 2).center()), (ModelHead{1, 2}));
    EXPECT_EQ(large.headAt(large.keyTokenRect(0, 0).center()), (ModelHead{-1, -1})) << "a token band is no head";

    EXPECT_EQ(labelledTokens(7, 140, 14), (QList<int>{0, 1, 2, 3, 4, 5, 6})) << "cells a line high: every token";
    EXPECT_EQ(labelledTokens(7, 70, 14), (QList<int>{0, 2, 4, 6})) << "half a line: every second";
    EXPECT_EQ(labelledTokens(100, 100, 14), (QList<int>{0, 14, 28, 42, 56, 70, 84, 98}));
    EXPECT_TRUE(labelledTokens(0, 100, 14).isEmpty());
}

TEST(ModelGridWindows, ACausalLayerOfAModelWithSlidingLayersSaysItsWindow)
{
    CheckpointConfig config;
    config.modelType = "gemma2";
    config.slidingWindow = 4096;
    CheckpointLayer layer;
    layer.kind = AttentionMode::DecoderCausal;
    layer.name = "model.layers.2.self_attn";
    EXPECT_EQ(layerWindowText(config, layer), QStringLiteral("sliding 4096"));
    layer.name = "model.layers.3.self_attn";
    EXPECT_EQ(layerWindowText(config, layer), QStringLiteral("global"));
    layer.kind = AttentionMode::Cross;
    EXPECT_EQ(layerWindowText(config, layer), QString()) << "only a causal layer slides";
    layer.kind = AttentionMode::DecoderCausal;
    config.slidingWindow.reset();
    EXPECT_EQ(layerWindowText(config, layer), QString()) << "no sliding layer: nothing to mark";
}

// The demo model (docs/demo-model) on its README's sentence: the grid names the heads the typed
// sentence shows to be previous-token and induction heads, with their scores (PyTorch's attention
// in its reference.json gives prev 0.9251, 0.8570 and ind 0.8593, 0.7653, 0.4618; head_roles.hpp).
TEST(ModelGridRoles, TheDemoModelsPreviousTokenAndInductionHeadsAreNamedWithTheirScores)
{
    const std::string folder = std::string(qkv::testDataDir()) + "/../../docs/demo-model";
    Expected<PretrainedModel> opened = openPretrainedModel(folder);
    ASSERT_TRUE(opened) << opened.error();
    auto model = std::make_shared<const PretrainedModel>(std::move(*opened));
    ModelOverviewRequest request;
    request.target = "a b c d e f g h a b c d e f g";
    Expected<ModelOverview> overview = computeModelOverview(model, request);
    ASSERT_TRUE(overview) << overview.error();
    auto result = std::make_shared<Result>();
    result->config.targetText = request.target;
    result->wholeModel = model;
    FigureInput input;
    input.result = result;
    input.overview = std::make_shared<const ModelOverview>(std::move(*overview));
    const Figure* figure = findFigure(QStringLiteral("model"));
    ASSERT_NE(figure, nullptr);
    TextProbe probe(QSize(900, 700));
    QPainter painter(&probe);
    figure->paint(painter, QRectF(0, 0, 900, 700), input);
    painter.end();
    for (const char* named : {"prev 0.93", "prev 0.86", "ind 0.86", "ind 0.77", "ind 0.46"})
        EXPECT_TRUE(probe.shows(QString::fromLatin1(named))) << named << " in " << probe.strings().join(" | ").toStdString();
    EXPECT_FALSE(probe.shows(QStringLiteral("prev 0.38"))) << "below 0.4: no role";
    EXPECT_FALSE(probe.shows(QStringLiteral("ind 0.08")));
}

// The window opens a clicked layer of the model and selects the head, without reading the model
// again; the Model tab then outlines it.
class ModelGridWindowTest : public WindowTest {};

TEST_F(ModelGridWindowTest, AClickOpensThatLayerAndHeadInEveryView)
{
    Expected<Checkpoint> bert = openCheckpoint(fixturePath());
    ASSERT_TRUE(bert) << bert.error();
    Config config = window->document()->config();
    config.sourceText = kSentence;
    setConfig(config);
    {
        QSignalSpy loaded(window.get(), &MainWindow::checkpointLayerLoaded);
        window->loadCheckpointLayer(*bert, bert->layers.front());
        ASSERT_TRUE(loaded.wait(10000));
        ASSERT_EQ(loaded.front().front().toString(), QString());
        settle();
    }
    auto* view = qobject_cast<ModelGridView*>(window->tabs()->view(QStringLiteral("model")));
    ASSERT_NE(view, nullptr);
    window->tabs()->setCurrentWidget(view);
    WholeModelRuns* runs = window->tabs()->wholeModelRuns();
    ASSERT_TRUE(QTest::qWaitFor([runs] { return runs->overview() && !runs->isBusy(); }, 20000));
    const std::shared_ptr<const PretrainedModel> model = runs->model();
    const CheckpointLayer target = runs->overview()->layer(2).layer;

    QSignalSpy loaded(window.get(), &MainWindow::checkpointLayerLoaded);
    QTest::mouseClick(view->gridCanvas(), Qt::LeftButton, {}, view->mapCellCenter({2, 3}, 0, 0));
    ASSERT_TRUE(loaded.wait(10000));
    EXPECT_EQ(loaded.front().front().toString(), QString());
    settle();
    EXPECT_EQ(window->document()->session().weightsProvenance.layer, target.name);
    EXPECT_EQ(window->selection()->head(), 3);
    ASSERT_TRUE(window->document()->result());
    EXPECT_EQ(window->document()->result()->wholeModelLayer, 2);
    EXPECT_EQ(window->document()->result()->wholeModel, model);  // the same model, not read again
}

}  // namespace
}  // namespace qkv::ui::testing
