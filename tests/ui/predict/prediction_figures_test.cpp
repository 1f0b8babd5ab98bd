// The "rollout" and "predictions" figures: unavailable (saying why) without the whole model,
// drawn from the overview otherwise, following FigureOptions' stop and position, and the same
// drawing at 96 and 192 dpi.

#include <QImage>
#include <QPainter>

#include <gtest/gtest.h>

#include <algorithm>

#include "core/families/family.hpp"
#include "core/pipeline/model_overview.hpp"
#include "tests/ui/predict/prediction_test_support.hpp"
#include "ui/figure_registry/figure_registry.hpp"
#include "ui/figures/figure_export.hpp"
#include "ui/figures/figure_render.hpp"
#include "ui/predict/prediction_figures.hpp"
#include "ui/support/text_probe.hpp"
#include "ui/wholemodel/whole_model_figure_parts.hpp"

namespace qkv::ui {
namespace {

FigureInput overviewInput(const std::string& family, const std::string& source, const std::string& target,
                          const std::set<ModelHead>& off = {})
{
    FigureInput input;
    const auto model = testing::openFixtureModel(family);
    EXPECT_TRUE(model);
    if (!model) return input;
    input.result = testing::wholeModelResult(model, source, target, 0);
    ModelOverviewRequest request;
    request.source = source;
    request.target = target;
    request.ablatedHeads = off;
    Expected<ModelOverview> overview = computeModelOverview(model, request);
    EXPECT_TRUE(overview.ok()) << (overview ? "" : overview.error());
    if (overview) input.overview = std::make_shared<const ModelOverview>(std::move(*overview));
    return input;
}

QImage render(const Figure& figure, const FigureInput& input, double ratio = 1.0)
{
    return figureImage(figure, input, ExportSize{figure.defaultSize, ratio});
}

TEST(PredictionFigures, UnavailableWithoutTheWholeModel)
{
    for (const char* name : {"rollout", "predictions"}) {
        const Figure* figure = findFigure(name);
        ASSERT_NE(figure, nullptr) << name;
        EXPECT_EQ(figure->view, QStringLiteral("predictions"));
        FigureInput input = overviewInput("bert", "d [MASK] super / [MASK]", "");
        input.overview.reset();
        EXPECT_EQ(figure->whyUnavailable(input), whyNoModelOverview(input)) << name;
        EXPECT_TRUE(figure->whyUnavailable(input).contains(QStringLiteral("File > Open Checkpoint"))) << name;
    }
}

TEST(PredictionFigures, RolloutFollowsTheStopLayer)
{
    const Figure* figure = findFigure("rollout");
    ASSERT_NE(figure, nullptr);
    FigureInput input = overviewInput("bert", "d [MASK] super / [MASK]", "");
    ASSERT_TRUE(input.overview);
    EXPECT_TRUE(figure->whyUnavailable(input).isEmpty());
    const QImage last = render(*figure, input);
    input.options.rolloutStop = 0;
    const QImage first = render(*figure, input);
    ASSERT_FALSE(last.isNull());
    EXPECT_NE(first, last);
    // -1 is the last layer.
    input.options.rolloutStop =
        static_cast<Index>(rolloutLayers(*input.overview->model, *input.overview->run).size()) - 1;
    EXPECT_EQ(render(*figure, input), last);
    const RolloutPicture picture = makeRolloutPicture(*input.overview, 0);
    const Expected<MatrixD> expected = modelRollout(*input.overview->model, *input.overview->run, 0);
    ASSERT_TRUE(expected.ok());
    EXPECT_TRUE(picture.rollout.isApprox(*expected, 0.0));
}

TEST(PredictionFigures, PredictionsDrawBothRunsAtEveryResolution)
{
    const Figure* figure = findFigure("predictions");
    ASSERT_NE(figure, nullptr);
    FigureInput input = overviewInput("gpt2", "", "the cat sat", {{1, 2}});
    ASSERT_TRUE(input.overview);
    EXPECT_TRUE(figure->whyUnavailable(input).isEmpty());
    const QImage at96 = render(*figure, input);
    const QImage at192 = render(*figure, input, 2.0);
    ASSERT_FALSE(at96.isNull());
    EXPECT_EQ(at192.size(), at96.size() * 2);
    // The same drawing: scaled down, the 192 dpi image is close to the 96 dpi one.
    const QImage down =
        at192.scaled(at96.size(), Qt::IgnoreAspectRatio, Qt::SmoothTransformation).convertToFormat(at96.format());
    double difference = 0.0;
    for (int y = 0; y < at96.height(); ++y)
        for (int x = 0; x < at96.width(); ++x)
            difference += std::abs(qGray(at96.pixel(x, y)) - qGray(down.pixel(x, y)));
    EXPECT_LT(difference / (at96.width() * at96.height()), 12.0);
    // Another position draws another chart.
    input.options.predictionPosition = 0;
    EXPECT_NE(render(*figure, input), at96);

    // A comparison of the two runs with the heads named.
    const Expected<PredictionComparison> comparison =
        comparePredictions(*input.overview, 0, PredictedTokenNames(*input.overview->model));
    ASSERT_TRUE(comparison.ok());
    EXPECT_EQ(comparison->headsOffText.toStdString(), modelHeadText(*input.overview->model, {1, 2}));
    const ChartModel chart = predictionsChart(*comparison);
    ASSERT_EQ(chart.series.size(), 2u);
    EXPECT_EQ(chart.categories.size(), static_cast<int>(comparison->rows.size()));
}

// A predictions figure read alone (a slide, a paper) says whose predictions they are and of what:
// the model's name, family and shape, and the prompt.
TEST(PredictionFigures, PredictionsNameTheModelAndThePrompt)
{
    const Figure* figure = findFigure("predictions");
    ASSERT_NE(figure, nullptr);
    const FigureInput input = overviewInput("gpt2", "", "the cat sat on the mat", {{1, 2}});
    ASSERT_TRUE(input.overview);
    EXPECT_EQ(modelName(*input.overview->model), QStringLiteral("gpt2")) << "a model folder: its name";
    testing::TextProbe device(figure->defaultSize.toSize());
    {
        QPainter painter(&device);
        paintFigure(painter, *figure, QRectF(QPointF(0, 0), figure->defaultSize), input);
    }
    const QStringList strings = device.strings();
    const QString shape = QStringLiteral("Model: gpt2 (%1, %2 layers × %3 heads)")
                              .arg(QString::fromUtf8(familyName(input.overview->model->recipe.family).data()))
                              .arg(input.overview->layerCount())
                              .arg(input.overview->layer(0).attention.headCount());
    EXPECT_TRUE(strings.contains(shape)) << strings.join(QLatin1Char('|')).toStdString();
    EXPECT_TRUE(strings.contains(QStringLiteral("Prompt: “the cat sat on the mat”")))
        << strings.join(QLatin1Char('|')).toStdString();
    // A masked LM's prompt is the source sentence.
    const FigureInput bert = overviewInput("bert", "d [MASK] super / [MASK]", "");
    ASSERT_TRUE(bert.overview);
    EXPECT_EQ(predictionsSubtitle(*bert.overview, readoutSentence(*bert.overview->model, "d [MASK] super / [MASK]", ""))
                  .value(1),
              QStringLiteral("Prompt: “d [MASK] super / [MASK]”"));
    // A long prompt keeps its start and its end on one line.
    testing::TextProbe narrow(QSize(480, 320));
    {
        QPainter painter(&narrow);
        const Expected<PredictionComparison> comparison = comparePredictions(
            *input.overview, defaultPredictionPosition(*input.overview), PredictedTokenNames(*input.overview->model));
        ASSERT_TRUE(comparison.ok());
        QString prompt;
        for (int i = 0; i < 40; ++i) prompt += QStringLiteral("word%1 ").arg(i);
        paintPredictions(painter, QRectF(0, 0, 480, 320), *comparison, predictionsSubtitle(*input.overview, prompt),
                         FigureOptions{});
    }
    const auto elided = std::find_if(narrow.texts().begin(), narrow.texts().end(),
                                     [](const testing::DrawnText& t) { return t.text.startsWith(QStringLiteral("Prompt: “word0")); });
    ASSERT_NE(elided, narrow.texts().end()) << narrow.strings().join(QLatin1Char('|')).toStdString();
    EXPECT_TRUE(elided->text.contains(QChar(0x2026)));
    EXPECT_TRUE(elided->text.endsWith(QStringLiteral("word39”"))) << elided->text.toStdString();
    EXPECT_LE(elided->bounds.right(), 480.0);
}

// The rollout's token labels never touch: where a cell is less than a line of text high, every
// k-th is drawn, k cells a whole line (GPT-2's "·g" above "·h" touched at an ascent apart).
TEST(PredictionFigures, RolloutLabelsNeverTouch)
{
    const Figure* figure = findFigure("rollout");
    ASSERT_NE(figure, nullptr);
    // 18 tokens, as many as the small GPT-2 takes (20 positions): cells smaller than a line.
    FigureInput input = overviewInput("gpt2", "", "the cat sat on a mat the cat sat on a mat the cat sat on a mat");
    ASSERT_TRUE(input.overview);
    input.options.font.setPointSizeF(13);  // a projector's: lines taller than the cells
    for (const QSize size : {QSize(320, 560), QSize(420, 460), figure->defaultSize.toSize(), QSize(1400, 1400)}) {
        testing::TextProbe device(size);
        {
            QPainter painter(&device);
            paintFigure(painter, *figure, QRectF(QPointF(0, 0), QSizeF(size)), input);
        }
        const QStringList tokens = rolloutTokens(*input.overview);
        std::vector<testing::DrawnText> labels;
        for (const testing::DrawnText& t : device.texts())
            if (tokens.contains(t.text)) labels.push_back(t);
        EXPECT_GE(labels.size(), 4u) << size.width() << " x " << size.height();
        // The column labels (rotated, under the cells) all start at the lowest top; the row
        // labels are the others. Each is compared with its own kind.
        double lowestTop = 0;
        for (const testing::DrawnText& t : labels) lowestTop = std::max(lowestTop, t.bounds.top());
        const auto column = [lowestTop](const testing::DrawnText& t) { return t.bounds.top() > lowestTop - 1; };
        for (std::size_t i = 0; i < labels.size(); ++i)
            for (std::size_t j = i + 1; j < labels.size(); ++j) {
                if (column(labels[i]) != column(labels[j])) continue;
                const QRectF both = labels[i].bounds.intersected(labels[j].bounds);
                EXPECT_LT(std::min(both.width(), both.height()), 0.5)
                    << "'" << labels[i].text.toStdString() << "' and '" << labels[j].text.toStdString() << "' at "
                    << size.width() << " x " << size.height();
            }
    }
}

TEST(PredictionFigures, NoStringIsCutAtCommonSizes)
{
    const std::vector<FigureInput> inputs = {overviewInput("bert", "d [MASK] super / [MASK]", "", {{0, 1}, {2, 3}}),
                                             overviewInput("gpt2", "", "the cat sat on the mat", {{1, 2}})};
    for (const FigureInput& input : inputs) {
        ASSERT_TRUE(input.overview);
        for (const char* name : {"rollout", "predictions"}) {
            const Figure* figure = findFigure(name);
            ASSERT_NE(figure, nullptr);
            for (const QSize size : {QSize(1000, 700), QSize(1400, 900), QSize(1920, 1080),
                                     figure->defaultSize.toSize(), QSize(420, 460)}) {
                testing::TextProbe device(size);
                {
                    QPainter painter(&device);
                    paintFigure(painter, *figure, QRectF(QPointF(0, 0), QSizeF(size)), input);
                }
                EXPECT_FALSE(device.texts().empty()) << name;
                EXPECT_EQ(device.problems().join(QLatin1Char('\n')).toStdString(), "")
                    << name << " at " << size.width() << " x " << size.height();
            }
        }
    }
}

}  // namespace
}  // namespace qkv::ui
