// The matrices view: every matrix is the core's (hover gives the stored value), the selected
// query's row is marked in every matrix of the queries lane and follows the selection, clicks
// select the query, key or head for every view, and big layers are pooled for drawing.

#include <QBuffer>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

#include "tests/ui/support/layer_test_support.hpp"
#include "ui/background/work_placement.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/matrices/matrices_view.hpp"
#include "ui/matrices/matrix_picture.hpp"

namespace qkv::ui::testing {
namespace {

struct ShownMatricesView {
    explicit ShownMatricesView(const qkv::Config& config) : result(computeResult(config))
    {
        showAt(view, QSize(1300, 860));
        view.setResult(result);
        waitUntilIdle(view);
    }
    QPoint cellCentre(LayerMatrix m, qkv::Index row, qkv::Index column) const
    {
        const QRectF cells = view.geometry().cells[static_cast<std::size_t>(m)];
        const auto* model = view.model().get();
        return QPointF(cells.left() +
                           (static_cast<double>(column) + 0.5) * cells.width() / static_cast<double>(model->columns(m)),
                       cells.top() +
                           (static_cast<double>(row) + 0.5) * cells.height() / static_cast<double>(model->rows(m)))
            .toPoint();
    }
    std::shared_ptr<const qkv::Result> result;
    MatricesView view{nullptr};
};

// The value the core stored for each matrix of the figure, read directly from the Result.
double coreValue(const qkv::Result& r, qkv::Index head, LayerMatrix m, qkv::Index row, qkv::Index column)
{
    const qkv::AttentionResult& a = r.attention;
    const qkv::Index d_k = a.d_k(), group = a.grouping.keyValueHeadOf(head);
    switch (m) {
    case LayerMatrix::QueryInput: return r.queryInput(row, column);
    case LayerMatrix::KeyValueInput: return r.keyValueInput(row, column);
    case LayerMatrix::Query: return a.query(row, column);
    case LayerMatrix::Key: return a.key(row, column);
    case LayerMatrix::Value: return a.value(row, column);
    case LayerMatrix::QueryHead: return a.query(row, head * d_k + column);
    case LayerMatrix::KeyHead: return a.key(row, group * d_k + column);
    case LayerMatrix::ValueHead: return a.value(row, group * d_k + column);
    case LayerMatrix::Scores: return a.heads[head].scores(row, column);
    case LayerMatrix::Attention: return a.heads[head].attention(row, column);
    case LayerMatrix::HeadOutput: return a.headOutputs(row, head * d_k + column);
    case LayerMatrix::Concat: return a.isAblated(column / d_k) ? 0.0 : a.headOutputs(row, column);
    case LayerMatrix::OutputProjection: return r.weights->outputProjection(row, column);
    case LayerMatrix::Output: return a.output(row, column);
    }
    return 0;
}

TEST(MatricesView, HoverGivesTheStoredValueOfEveryMatrix)
{
    qkv::Config config = crossConfig();
    config.keyValueHeadCount = 2;
    config.ablatedHeads = {0};
    ShownMatricesView s(config);
    s.view.selection()->setHead(3);
    waitUntilIdle(s.view);
    ASSERT_NE(s.view.model(), nullptr);
    const MatricesModel& model = *s.view.model();
    ASSERT_EQ(model.head(), 3);
    EXPECT_EQ(model.columns(LayerMatrix::Key), 2 * 16);  // g d_k under grouped-query attention
    EXPECT_EQ(model.keyValueHead(), 1);
    for (int i = 0; i < kLayerMatrixCount; ++i) {
        const auto m = static_cast<LayerMatrix>(i);
        const qkv::Index row = model.rows(m) - 1, column = model.columns(m) / 2;
        const double expected = coreValue(*s.result, 3, m, row, column);
        EXPECT_EQ(model.value(m, row, column), expected) << model.name(m).toStdString();
        const QString tip = s.view.toolTipAt(s.cellCentre(m, row, column));
        EXPECT_TRUE(tip.contains(QStringLiteral("<b>%1</b>").arg(model.name(m)))) << tip.toStdString();
        EXPECT_TRUE(tip.contains(preciseNumber(expected))) << model.name(m).toStdString() << ": " << tip.toStdString();
    }
    // The switched-off head's Concat block is zero, and the tooltip says why.
    EXPECT_EQ(model.value(LayerMatrix::Concat, 0, 3), 0.0);
    EXPECT_TRUE(s.view.toolTipAt(s.cellCentre(LayerMatrix::Concat, 0, 3)).contains(QStringLiteral("switched off")));
}

// Whether the selection colour is on the top edge of `row`'s band in matrix `m`.
bool rowMarked(const ShownMatricesView& s, LayerMatrix m, qkv::Index row)
{
    const QImage image = s.view.canvas()->grab().toImage();
    const QRectF cells = s.view.geometry().cells[static_cast<std::size_t>(m)];
    const QRectF band = matrixRowBand(cells, s.view.model()->rows(m), row);
    const double ratio = image.devicePixelRatio();
    for (int dy = -2; dy <= 2; ++dy) {
        const QColor c =
            image.pixelColor(static_cast<int>(band.center().x() * ratio), static_cast<int>((band.top() + dy) * ratio));
        if (c.red() > 240 && c.green() > 120 && c.green() < 160 && c.blue() < 30) return true;
    }
    return false;
}

TEST(MatricesView, TheSelectedQueryRowIsMarkedThroughEveryMatrixAndFollowsTheSelection)
{
    ShownMatricesView s(selfConfig());
    s.view.selection()->setCell(2, 1);
    QApplication::processEvents();
    for (LayerMatrix m : {LayerMatrix::QueryInput, LayerMatrix::Query, LayerMatrix::QueryHead, LayerMatrix::Scores,
                          LayerMatrix::Attention, LayerMatrix::HeadOutput, LayerMatrix::Concat, LayerMatrix::Output}) {
        EXPECT_TRUE(rowMarked(s, m, 2)) << s.view.model()->name(m).toStdString();
        EXPECT_FALSE(rowMarked(s, m, 4)) << s.view.model()->name(m).toStdString();
    }
    s.view.selection()->setCell(4, 1);
    QApplication::processEvents();
    EXPECT_TRUE(rowMarked(s, LayerMatrix::Output, 4));
    EXPECT_FALSE(rowMarked(s, LayerMatrix::Output, 2));
    // The key's row in the keys lane.
    EXPECT_TRUE(rowMarked(s, LayerMatrix::ValueHead, 1));
}

TEST(MatricesView, ClickingARowSelectsThatQueryOrKeyEverywhereAndWORowsAHead)
{
    ShownMatricesView s(crossConfig());
    HeadSelection* selection = s.view.selection();
    QTest::mouseClick(s.view.canvas(), Qt::LeftButton, {}, s.cellCentre(LayerMatrix::Output, 3, 10));
    EXPECT_EQ(selection->queryRow(), 3);
    QTest::mouseClick(s.view.canvas(), Qt::LeftButton, {}, s.cellCentre(LayerMatrix::ValueHead, 5, 2));
    EXPECT_EQ(selection->keyColumn(), 5);
    QTest::mouseClick(s.view.canvas(), Qt::LeftButton, {}, s.cellCentre(LayerMatrix::Attention, 1, 2));
    EXPECT_EQ(selection->queryRow(), 1);
    EXPECT_EQ(selection->keyColumn(), 2);
    QTest::mouseClick(s.view.canvas(), Qt::LeftButton, {}, s.cellCentre(LayerMatrix::OutputProjection, 40, 3));
    EXPECT_EQ(selection->head(), 2);  // rows 32..47 of W^O belong to head 3
    waitUntilIdle(s.view);
    EXPECT_EQ(s.view.model()->head(), 2);
    s.view.canvas()->setFocus();
    QTest::keyClick(s.view.canvas(), Qt::Key_Up);
    EXPECT_EQ(selection->queryRow(), 0);
}

TEST(MatricesView, BigLayersArePooledForDrawingAndBuiltOffTheGuiThread)
{
    const auto result = computeResult(longConfig(512, 1024, 16));
    ASSERT_NE(result, nullptr);
    EXPECT_GT(MatricesModel::buildWork(*result), kGuiThreadWorkLimit);
    const auto model = MatricesModel::build(result, 5);
    for (int i = 0; i < kLayerMatrixCount; ++i) {
        const MatrixPicture& p = model->picture(static_cast<LayerMatrix>(i));
        EXPECT_LE(p.image.width(), kPictureSide);
        EXPECT_LE(p.image.height(), kPictureSide);
        EXPECT_EQ(p.rows, model->rows(static_cast<LayerMatrix>(i)));
    }
    EXPECT_EQ(model->rows(LayerMatrix::Query), 512);
    EXPECT_EQ(model->columns(LayerMatrix::OutputProjection), 1024);
    // A change of head keeps the other pictures.
    const auto next = MatricesModel::build(result, 6, model);
    EXPECT_EQ(&next->picture(LayerMatrix::Query).image.constBits()[0],
              &model->picture(LayerMatrix::Query).image.constBits()[0]);
    EXPECT_NE(&next->picture(LayerMatrix::QueryHead), &model->picture(LayerMatrix::QueryHead));
}

}  // namespace
}  // namespace qkv::ui::testing

namespace qkv::ui {
namespace {

// The first image an SVG embeds (a PNG in a data URL).
QImage firstEmbeddedImage(const QByteArray& svg)
{
    const qsizetype start = svg.indexOf("base64,");
    if (start < 0) return {};
    const qsizetype end = svg.indexOf('"', start);
    return QImage::fromData(QByteArray::fromBase64(svg.mid(start + 7, end - start - 7)), "PNG");
}

// In SVG and PDF a matrix's picture is enlarged nearest-neighbour, so that viewers which smooth
// images blur only within a cell (a 5 x 7 matrix went in as a 5 x 7 image, which they blur).
TEST(MatrixPicture, AVectorFileGetsCrispCells)
{
    const MatrixF values = MatrixF::Random(5, 7);
    const MatrixPicture picture = makeSignedPicture(values, 256);
    ASSERT_EQ(picture.image.size(), QSize(7, 5));
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(QSize(300, 200));
    {
        QPainter painter(&svg);
        paintPicture(painter, QRectF(10, 10, 280, 180), picture);
    }
    const QImage embedded = firstEmbeddedImage(buffer.data());
    ASSERT_EQ(embedded.size(), QSize(7 * 8, 5 * 8));  // 8 image pixels per cell side
    // Each cell a block of its own colour.
    EXPECT_EQ(embedded.pixel(3 * 8, 2 * 8), picture.image.pixel(3, 2));
    EXPECT_EQ(embedded.pixel(3 * 8 + 7, 2 * 8 + 7), picture.image.pixel(3, 2));
}

}  // namespace
}  // namespace qkv::ui
