// The base every heavy view is built on (ui/views/model_view.hpp): one head box that names the
// switched-off heads in every view, one limit for moving work off the GUI thread, one
// placeholder, and the same model-then-paint cycle whichever view it is.

#include <QComboBox>
#include <QImage>
#include <QPainter>

#include "tests/ui/support/layer_test_support.hpp"
#include "ui/background/work_placement.hpp"
#include "ui/compare/compare_view.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figure_registry/figure_registry.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figures/figure.hpp"
#include "ui/matrices/matrices_view.hpp"
#include "ui/qkmap/qk_map_view.hpp"
#include "ui/views/head_box.hpp"

namespace qkv::ui::testing {
namespace {

QStringList headBoxItems(const QComboBox& box)
{
    QStringList items;
    for (int i = 0; i < box.count(); ++i) items << box.itemText(i);
    return items;
}

// Every view with a head box names the heads the same way, the switched-off one included.
template <class View>
void expectHeadBoxMarksSwitchedOffHeads()
{
    qkv::Config config = crossConfig();
    config.ablatedHeads = {2};
    const auto result = computeResult(config);
    ASSERT_NE(result, nullptr);
    View view(nullptr);
    showAt(view, QSize(1100, 720));
    view.setResult(result);
    waitUntilIdle(view);
    ASSERT_NE(view.headBox(), nullptr);
    EXPECT_EQ(headBoxItems(*view.headBox()),
              (QStringList{QStringLiteral("Head 1"), QStringLiteral("Head 2"), QStringLiteral("Head 3 (switched off)"),
                           QStringLiteral("Head 4")}));
    view.selection()->setHead(3);
    EXPECT_EQ(view.headBox()->currentIndex(), 3);  // follows the shared selection
    view.headBox()->activated(1);
    EXPECT_EQ(view.selection()->head(), 1);  // and sets it
}

TEST(ModelView, EveryHeadBoxMarksSwitchedOffHeads)
{
    expectHeadBoxMarksSwitchedOffHeads<MatricesView>();
    expectHeadBoxMarksSwitchedOffHeads<QkMapView>();
}

TEST(ModelView, HeadBoxFollowsTheHeadCountOfANewResult)
{
    HeadSelection selection;
    HeadBox box(&selection);
    qkv::Config config = crossConfig();
    box.showHeadsOf(computeResult(config).get());
    EXPECT_EQ(box.count(), 4);
    config.headCount = 2;
    box.showHeadsOf(computeResult(config).get());
    EXPECT_EQ(headBoxItems(box), (QStringList{QStringLiteral("Head 1"), QStringLiteral("Head 2")}));
    box.showHeadsOf(nullptr);
    EXPECT_EQ(box.count(), 0);
}

TEST(ModelView, OneLimitDecidesWhereWorkRuns)
{
    EXPECT_EQ(placementFor(0), LatestTaskBase::Run::InlineWhenIdle);
    EXPECT_EQ(placementFor(kGuiThreadWorkLimit), LatestTaskBase::Run::InlineWhenIdle);
    EXPECT_EQ(placementFor(kGuiThreadWorkLimit * 1.01), LatestTaskBase::Run::InBackground);
}

TEST(ModelView, SmallModelsAreBuiltBeforeSetResultReturnsAndBigOnesLater)
{
    MatricesView small(nullptr);
    showAt(small, QSize(1100, 720));
    const auto smallResult = computeResult(crossConfig());
    ASSERT_LE(MatricesModel::buildWork(*smallResult), kGuiThreadWorkLimit);
    small.setResult(smallResult);
    EXPECT_NE(small.model(), nullptr);  // inline: no wait

    MatricesView big(nullptr);
    showAt(big, QSize(1100, 720));
    const auto bigResult = computeResult(longConfig(512, 1024, 16));
    ASSERT_GT(MatricesModel::buildWork(*bigResult), kGuiThreadWorkLimit);
    big.setResult(bigResult);
    EXPECT_EQ(big.model(), nullptr);  // on the pool: not yet
    EXPECT_TRUE(big.isBusy());
    waitUntilIdle(big);
    ASSERT_NE(big.model(), nullptr);
    EXPECT_EQ(big.model()->resultPointer(), bigResult);
}

TEST(ModelView, WithoutAResultTheCanvasSaysSoAndTheModelIsDropped)
{
    MatricesView view(nullptr);
    showAt(view, QSize(900, 600));
    view.setResult(computeResult(crossConfig()));
    waitUntilIdle(view);
    EXPECT_NE(view.model(), nullptr);
    view.setResult(nullptr);
    view.ensureCurrent();
    EXPECT_EQ(view.model(), nullptr);
    QImage image(view.canvas()->size(), QImage::Format_ARGB32);
    image.fill(Qt::white);
    view.canvas()->render(&image);
    bool drewSomething = false;
    for (int y = 0; y < image.height() && !drewSomething; ++y)
        for (int x = 0; x < image.width() && !drewSomething; ++x)
            drewSomething = image.pixel(x, y) != image.pixel(0, 0);
    EXPECT_TRUE(drewSomething) << "the placeholder text was not drawn";
}

TEST(PerHeadFigure, IsUnavailableWithoutAResultOrOutsideTheHeads)
{
    for (const QString& name : {QStringLiteral("matrices"), QStringLiteral("head-weights"), QStringLiteral("qk-map"),
                                QStringLiteral("compare-heads")}) {
        const Figure* figure = findFigure(name);
        ASSERT_NE(figure, nullptr) << name.toStdString();
        FigureInput input;
        EXPECT_EQ(figure->whyUnavailable(input), QStringLiteral("No result yet."));
        EXPECT_EQ(figure->unavailable(input), QStringLiteral("No result yet."));
        input.result = computeResult(crossConfig());
        input.options.head = 3;
        EXPECT_EQ(figure->whyUnavailable(input), QString()) << name.toStdString();
        input.options.head = 4;
        EXPECT_EQ(figure->whyUnavailable(input), QStringLiteral("The selected head is outside this result."))
            << name.toStdString();
    }
}

}  // namespace
}  // namespace qkv::ui::testing
