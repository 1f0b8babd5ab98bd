// The "rollout" and "predictions" figures: unavailable (saying why) without the whole model,
// drawn from the overview otherwise, following FigureOptions' stop and position, and the same
// drawing at 96 and 192 dpi.

#include <QImage>
#include <QPainter>

#include <gtest/gtest.h>

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
