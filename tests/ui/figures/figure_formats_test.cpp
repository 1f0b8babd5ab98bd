// Every registered figure in every format: a PNG decodes at the asked
// size, an SVG parses and keeps its text as text, a PDF has one page; a publication figure has
// no selection marks.

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QXmlStreamReader>

#include <algorithm>
#include <cmath>
#include <set>

#include "tests/ui/figures/figure_test_support.hpp"
#include "tests/ui/support/text_probe.hpp"
#include "ui/figure_registry/figure_registry.hpp"
#include "ui/figures/figure_render.hpp"

namespace qkv::ui {
namespace {

using testing::figureInput;
using testing::figureInputFor;

std::vector<std::string> figureNames()
{
    std::vector<std::string> names;
    for (const Figure& f : allFigures()) names.push_back(f.name.toStdString());
    return names;
}

// Fraction of pixels that are not the background.
double inkedShare(const QImage& image, QRgb background = qRgb(255, 255, 255))
{
    qint64 inked = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            if ((image.pixel(x, y) & 0xffffff) != (background & 0xffffff)) ++inked;
    return static_cast<double>(inked) / (static_cast<double>(image.width()) * image.height());
}

// Every <text> element's content, and the <title>.
struct SvgText {
    QStringList texts;
    QString title;
    int images = 0;
    QString error;
};

SvgText readSvg(const QByteArray& bytes)
{
    SvgText svg;
    QXmlStreamReader xml(bytes);
    QStringList stack;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            stack << xml.name().toString();
            if (xml.name() == QLatin1String("image")) ++svg.images;
        } else if (xml.isEndElement()) {
            stack.removeLast();
        } else if (xml.isCharacters() && !xml.isWhitespace() && !stack.isEmpty()) {
            if (stack.last() == QLatin1String("text")) svg.texts << xml.text().toString();
            if (stack.last() == QLatin1String("title")) svg.title += xml.text().toString();
        }
    }
    if (xml.hasError()) svg.error = xml.errorString();
    return svg;
}

class EveryFigure : public ::testing::TestWithParam<std::string> {
protected:
    const Figure& figure() const
    {
        const Figure* f = findFigure(QString::fromStdString(GetParam()));
        EXPECT_NE(f, nullptr);
        return *f;
    }
};

// The mean absolute difference of two images of one size, over pixels and channels, in [0, 1].
double meanDifference(const QImage& a, const QImage& b)
{
    const QImage x = a.convertToFormat(QImage::Format_RGB32), y = b.convertToFormat(QImage::Format_RGB32);
    double sum = 0;
    for (int row = 0; row < x.height(); ++row) {
        const auto* p = reinterpret_cast<const QRgb*>(x.constScanLine(row));
        const auto* q = reinterpret_cast<const QRgb*>(y.constScanLine(row));
        for (int column = 0; column < x.width(); ++column)
            sum += std::abs(qRed(p[column]) - qRed(q[column])) + std::abs(qGreen(p[column]) - qGreen(q[column])) +
                   std::abs(qBlue(p[column]) - qBlue(q[column]));
    }
    return sum / (3.0 * 255.0 * x.width() * x.height());
}

// A PNG at 192 or 300 dpi is the 96-dpi figure drawn sharper: scaled down alike, the two are
// the same picture but for antialiasing. (Text in points used to double inside a layout
// that kept its 96-dpi sizes: heatmaps shrank and titles ran into labels.)
TEST_P(EveryFigure, PngAtAnyDpiIsTheSameFigure)
{
    const FigureInput input = figureInputFor(GetParam());
    ASSERT_EQ(figure().whyUnavailable(input), QString());
    const QSizeF size = figure().defaultSize;
    QString error;
    const QImage base = QImage::fromData(figureBytes(figure(), input, FigureFormat::Png, ExportSize{size, 1.0}, error));
    ASSERT_FALSE(base.isNull()) << error.toStdString();
    for (const double ratio : {2.0, 300.0 / 96.0}) {
        const QImage sharp =
            QImage::fromData(figureBytes(figure(), input, FigureFormat::Png, ExportSize{size, ratio}, error));
        ASSERT_FALSE(sharp.isNull()) << error.toStdString();
        // Compared at a quarter of the logical size: where text and panels stand, not where a
        // heatmap's cell edges fall between pixels.
        const QSize quarter = base.size() / 4;
        const QImage a = base.scaled(quarter, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
        const QImage b = sharp.scaled(quarter, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
        // Measured: at most 0.011 (dense heatmaps sample their cells differently); with the text
        // doubled in a 96-dpi layout every figure differed by 0.03 to 0.42.
        EXPECT_LT(meanDifference(a, b), 0.02) << "at " << 96 * ratio << " dpi";
    }
}

// A figure drawn for a file shows no selection: what it is about (its head, its query) is marked
// in the text's colour, never in the selection's orange. On screen the marks are there.
TEST_P(EveryFigure, PublicationFigureHasNoSelectionMarks)
{
    FigureInput input = figureInputFor(GetParam());
    const QSize size = figure().defaultSize.toSize();
    const auto selectionPixels = [&](const FigureInput& drawn) {
        QImage image(size, QImage::Format_RGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        paintFigure(painter, figure(), QRectF(QPointF(0, 0), QSizeF(size)), drawn);
        painter.end();
        qint64 count = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                count += (image.pixel(x, y) & 0xffffff) == (kSelectionColor.rgb() & 0xffffff);
        return count;
    };
    EXPECT_EQ(selectionPixels(input), 0) << "the selection's orange in a publication figure";
}

// Heads of their own width (d_k 12 at d_model 32, h 4: W^Q is 32 x 48): every figure draws
// them, as it draws d_k = d_model / h.
TEST_P(EveryFigure, HeadsOfTheirOwnWidthAreDrawn)
{
    FigureInput input = figureInputFor(GetParam());
    input.result = testing::figureResult(qkv::AttentionMode::Cross, 32, 4, 7, 12);
    input.pinned = testing::figureResult(qkv::AttentionMode::Cross, 32, 4, 8, 12);
    ASSERT_NE(input.result, nullptr);
    ASSERT_EQ(input.result->attention.d_k(), 12);
    const QSize size = figure().defaultSize.toSize();
    QImage image(size, QImage::Format_RGB32);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        paintFigure(painter, figure(), QRectF(QPointF(0, 0), QSizeF(size)), input);
    }
    EXPECT_GT(inkedShare(image), 0.02) << "a nearly blank figure";
}

TEST_P(EveryFigure, PngDecodesAtTheAskedSize)
{
    const FigureInput input = figureInputFor(GetParam());
    ASSERT_EQ(figure().whyUnavailable(input), QString());
    QTemporaryDir directory;
    for (const ExportSize size : {ExportSize{QSizeF(1000, 700), 1.0}, ExportSize{figure().defaultSize, 2.0}}) {
        const QString path = directory.filePath(QStringLiteral("figure.png"));
        ASSERT_EQ(writeFigure(figure(), input, path, FigureFormat::Png, size), QString());
        QImage image;
        ASSERT_TRUE(image.load(path, "PNG"));
        EXPECT_EQ(image.size(), size.pixels());
        // The DPI is recorded: the physical size stays the logical one at 96 dpi.
        EXPECT_NEAR(image.dotsPerMeterX() * 0.0254, 96.0 * size.pixelRatio, 1.0);
        EXPECT_GT(inkedShare(image), 0.02) << "almost blank";
    }
}

TEST_P(EveryFigure, SvgParsesAndKeepsItsTextAsText)
{
    const FigureInput input = figureInputFor(GetParam());
    const QSizeF size(1200, 800);
    QString error;
    const QByteArray bytes = figureBytes(figure(), input, FigureFormat::Svg, ExportSize{size, 1.0}, error);
    ASSERT_EQ(error, QString());
    const SvgText svg = readSvg(bytes);
    ASSERT_EQ(svg.error, QString());
    EXPECT_EQ(svg.title, figure().title);
    EXPECT_TRUE(bytes.contains(R"(viewBox="0 0 1200 800")"));
    EXPECT_FALSE(bytes.contains(R"(font-family="Sans Serif")"));
    // Every string the figure draws is in the file as text (a probe records them).
    testing::TextProbe probe(size.toSize());
    {
        QPainter painter(&probe);
        paintFigure(painter, figure(), QRectF(QPointF(0, 0), size), input);
    }
    ASSERT_FALSE(probe.texts().empty());
    const QString allText = svg.texts.join(QLatin1Char('\n'));
    for (const QString& drawn : probe.strings()) EXPECT_TRUE(allText.contains(drawn)) << drawn.toStdString();
}

// Its rendering by Poppler (one page, not blank, no selection marks) is checked end to end, in
// a process of its own: figure_cli_test.cpp.
TEST_P(EveryFigure, PdfHasOnePage)
{
    const FigureInput input = figureInputFor(GetParam());
    QTemporaryDir directory;
    const QString path = directory.filePath(QStringLiteral("figure.pdf"));
    ASSERT_EQ(writeFigure(figure(), input, path, FigureFormat::Pdf, ExportSize{QSizeF(960, 720), 1.0}), QString());
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    EXPECT_TRUE(bytes.startsWith("%PDF-"));
    EXPECT_EQ(bytes.count(QByteArray("/Type /Page\n")) + bytes.count(QByteArray("/Type /Page ")) +
                  bytes.count(QByteArray("/Type /Page/")),
              1)
        << "one /Type /Page object";
    // 960 x 720 logical pixels are 10 x 7.5 inches: 720 x 540 points.
    EXPECT_TRUE(bytes.contains("/MediaBox [0 0 720.000000 540.000000]")) << "the page is not 720 x 540 points";
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryFigure, ::testing::ValuesIn(figureNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string name = info.param;
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

TEST(FigureRegistry, NamesAreUniqueAndEveryFigureIsComplete)
{
    std::set<QString> names;
    for (const Figure& f : allFigures()) {
        EXPECT_TRUE(names.insert(f.name).second) << f.name.toStdString();
        EXPECT_TRUE(f.name.contains(QRegularExpression(QStringLiteral("^[a-z][a-z0-9-]*$")))) << f.name.toStdString();
        EXPECT_FALSE(f.title.isEmpty());
        EXPECT_FALSE(f.view.isEmpty());
        EXPECT_FALSE(f.defaultSize.isEmpty());
        EXPECT_TRUE(bool(f.paint));
        EXPECT_EQ(findFigure(f.name), &f);
    }
    for (const char* name :
         {"heads", "head", "steps", "factored", "factor-product", "spectrum", "fused-layout", "equivalence",
          "comparison", "score-path", "layer-parameters", "parameters-vs-h", "score-flops", "head-statistics",
          "matrices", "qk-map", "qk-map-heads", "compare", "compare-heads"})
        EXPECT_NE(findFigure(QString::fromLatin1(name)), nullptr) << name;
    EXPECT_EQ(figureNamesOfView(QStringLiteral("heads")),
              (QStringList{QStringLiteral("heads"), QStringLiteral("head"), QStringLiteral("query-row"), QStringLiteral("head-statistics")}));
    EXPECT_EQ(findFigure(QStringLiteral("no-such-figure")), nullptr);
}

TEST(FigureExport, HeatmapsAreImagesSoVectorFilesHaveNoSeams)
{
    const FigureInput input = figureInput();
    QString error;
    const QByteArray svg = figureBytes(*findFigure(QStringLiteral("heads")), input, FigureFormat::Svg,
                                       ExportSize{QSizeF(1400, 900), 1.0}, error);
    ASSERT_EQ(error, QString());
    // One image per head, shown pixelated; no cell is a rectangle of its own.
    EXPECT_EQ(readSvg(svg).images, 4);
    EXPECT_EQ(svg.count("image-rendering:pixelated"), 4);
    EXPECT_LT(svg.count("<rect") + svg.count("<path"), 200) << "cells drawn one by one";
}

TEST(FigureExport, NothingIsLeftAtThePathOnFailure)
{
    const FigureInput input = figureInput();
    const Figure& heads = *findFigure(QStringLiteral("heads"));
    QTemporaryDir directory;
    // A folder that does not exist.
    const QString missing = directory.filePath(QStringLiteral("missing/heads.png"));
    EXPECT_NE(writeFigure(heads, input, missing, FigureFormat::Png, {QSizeF(800, 600), 1.0}), QString());
    EXPECT_FALSE(QFile::exists(missing));
    // Too many pixels.
    const QString huge = directory.filePath(QStringLiteral("huge.png"));
    const QString message = writeFigure(heads, input, huge, FigureFormat::Png, {QSizeF(8000, 8000), 4.0});
    EXPECT_TRUE(message.contains(QStringLiteral("huge.png"))) << message.toStdString();
    EXPECT_FALSE(QFile::exists(huge));
    EXPECT_TRUE(QDir(directory.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).isEmpty());
}

TEST(FigureExport, RefusesATargetThatIsNotARegularFile)
{
    const FigureInput input = figureInput();
    QTemporaryDir directory;
    const QString fifo = directory.filePath(QStringLiteral("pipe.svg"));
    ASSERT_EQ(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    const QString message =
        writeFigure(*findFigure(QStringLiteral("heads")), input, fifo, FigureFormat::Svg, {QSizeF(800, 600), 1.0});
    EXPECT_TRUE(message.contains(QStringLiteral("not a regular file"))) << message.toStdString();
    EXPECT_TRUE(QFileInfo(fifo).exists() && !QFileInfo(fifo).isFile());  // still the FIFO
}

TEST(FigureExport, UnavailableFiguresSayWhy)
{
    FigureInput input = figureInput();
    input.options.key = 99;  // no such key position
    const Figure& steps = *findFigure(QStringLiteral("steps"));
    EXPECT_TRUE(steps.whyUnavailable(input).contains(QStringLiteral("key position 99")))
        << steps.whyUnavailable(input).toStdString();
    QTemporaryDir directory;
    const QString path = directory.filePath(QStringLiteral("steps.png"));
    EXPECT_FALSE(writeFigure(steps, input, path, FigureFormat::Png, {QSizeF(800, 600), 1.0}).isEmpty());
    EXPECT_FALSE(QFile::exists(path));
    input.result = nullptr;
    EXPECT_FALSE(steps.whyUnavailable(input).isEmpty());
}

}  // namespace
}  // namespace qkv::ui
