#include "ui/steps/step_figures.hpp"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/figures/figure_text.hpp"
#include "ui/figures/text_layout.hpp"
#include "ui/matrices/matrix_picture.hpp"
#include "ui/render/heatmap_painter.hpp"
#include "ui/steps/concat_labels.hpp"
#include "ui/steps/row_labels.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::StepFigure)
};

const QColor kQueryColor(0x2c, 0x7f, 0xb8), kWeightColor(0x66, 0x66, 0xcc);

QColor muted(const QColor& text)
{
    QColor c = text;
    c.setAlpha(170);
    return c;
}

}  // namespace

// Near the ends of the scale, not at them: the darkest orange and blue are hard to tell apart on thin bars.
QColor positiveColor() { return Colormap::get(kDivergingColormap).map(0.85); }
QColor negativeColor() { return Colormap::get(kDivergingColormap).map(0.15); }

StepBarStyles stepBarStyles(const StepNumbers& n, const FigureOptions& options)
{
    BarsStyle signedBars;
    signedBars.positive = positiveColor();
    signedBars.negative = negativeColor();
    signedBars.text = options.text;
    StepBarStyles styles{signedBars, signedBars, signedBars, signedBars};
    styles.query.hollow = n.qBeforeRotation;
    styles.key.hollow = n.kBeforeRotation;
    styles.output.axisTitle = Text::tr("components 0 … %1 of the output row").arg(n.d_model - 1);
    return styles;
}

BarsStyle softmaxBarsStyle(const StepNumbers& n, const FigureOptions& options)
{
    BarsStyle style;
    style.positive = style.negative = kWeightColor;
    style.text = options.text;
    style.highlight = emphasisColor(options);
    style.highlighted = n.key;
    style.percent = true;
    style.labels = n.keyLabels;
    style.hatched = n.keyMasked;
    style.axisTitle = Text::tr("keys (%1): weights in %; hatched: masked").arg(keySentence(n.mode));
    return style;
}

namespace {

// Positions [selected, selectedEnd) are chosen (several queries together); selectedEnd <= selected: one.
void drawChips(QPainter& painter, const std::vector<TokenChip>& chips, const QStringList& labels, int selected,
               const QColor& text, const QColor& accent, int selectedEnd = -1)
{
    selectedEnd = std::max(selectedEnd, selected + 1);
    const QFontMetricsF metrics(painter.font(), painter.device());
    for (const TokenChip& chip : chips) {
        if (chip.position < 0) {
            painter.setPen(muted(text));
            painter.drawText(chip.rect, Qt::AlignCenter, QStringLiteral("…"));
            continue;
        }
        const bool chosen = chip.position >= selected && chip.position < selectedEnd;
        QColor fill = chosen ? accent : muted(text);
        fill.setAlpha(chosen ? 255 : 28);
        painter.setPen(chosen ? QPen(accent.darker(130), 1) : QPen(muted(text), 0.6));
        painter.setBrush(fill);
        painter.drawRoundedRect(chip.rect.adjusted(0.5, 0.5, -0.5, -0.5), 4, 4);
        painter.setPen(chosen ? QColor(Qt::black) : text);
        painter.drawText(chip.rect, Qt::AlignCenter,
                         metrics.elidedText(labels[chip.position], Qt::ElideRight, chip.rect.width() - 4));
    }
    painter.setBrush(Qt::NoBrush);
}

void drawName(QPainter& painter, const QRectF& rect, const QString& text)
{
    painter.save();
    QFont bold = painter.font();
    bold.setBold(true);
    painter.setFont(bold);
    const QFontMetricsF metrics(bold, painter.device());
    painter.drawText(rect, Qt::AlignLeft | Qt::AlignBottom, metrics.elidedText(text, Qt::ElideRight, rect.width()));
    painter.restore();
}

void drawFormula(QPainter& painter, const QRectF& rect, const QString& text)
{
    painter.drawText(rect, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, text);
}

// Key labels left of ⑦'s rows (row_labels.hpp: all of them, smaller if need be, else one in k
// and the chosen key, the rule said over V_i); returns the rule.
QString drawRowLabels(QPainter& painter, const QRectF& rect, const QStringList& labels, int chosen, const QColor& text,
                      const QColor& emphasis)
{
    const int rows = static_cast<int>(labels.size());
    const RowLabels plan = planRowLabels(painter.font(), painter.device(), rect.height(), rows, chosen);
    if (rows == 0) return plan.rule;
    painter.save();
    painter.setFont(plan.font);
    const QFontMetricsF metrics(plan.font, painter.device());
    const double pitch = rect.height() / rows;
    for (int r : plan.rows) {
        const double centre = rect.top() + (r + 0.5) * pitch;
        // A label wider than the column is cut with "…" (the key list and the tooltips name it in full).
        const QString label = metrics.elidedText(labels[r], Qt::ElideRight, rect.width() - 4);
        painter.setPen(r == chosen ? emphasis : text);
        painter.drawText(QRectF(rect.left(), centre - metrics.height() / 2, rect.width() - 4, metrics.height()),
                         Qt::AlignRight | Qt::AlignVCenter, label);
    }
    painter.restore();
    return plan.rule;
}

void outlineRow(QPainter& painter, const QRectF& cells, qkv::Index rows, qkv::Index row, const QColor& emphasis)
{
    if (row < 0 || row >= rows) return;
    painter.setPen(QPen(emphasis, 2));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(matrixRowBand(cells, rows, row).adjusted(-1, -1, 1, 1));
}

void drawWeightColumn(QPainter& painter, const QRectF& rect, const StepNumbers& n, const QColor& text,
                      const QColor& emphasis)
{
    const QFontMetricsF metrics(painter.font(), painter.device());
    const int rows = static_cast<int>(n.rowWeights.size());
    if (rows == 0) return;
    const double pitch = rect.height() / rows;
    const bool withText = pitch >= metrics.height() - 2;
    // Bar lengths relative to the row's largest weight (the text gives the weight itself).
    double largest = 0;
    for (float w : n.rowWeights) largest = std::max(largest, static_cast<double>(w));
    if (!(largest > 0)) largest = 1;
    for (int r = 0; r < rows; ++r) {
        const QRectF row(rect.left(), rect.top() + r * pitch, rect.width(), pitch);
        const double w = std::clamp(static_cast<double>(n.rowWeights[static_cast<std::size_t>(r)]) / largest, 0.0, 1.0);
        QColor fill = kWeightColor;
        fill.setAlpha(r == n.key ? 255 : 150);
        painter.fillRect(QRectF(row.left(), row.top() + pitch * 0.15, row.width() * w, std::max(pitch * 0.7, 1.0)),
                         fill);
        if (withText) {
            painter.setPen(r == n.key ? emphasis : text);
            painter.drawText(row, Qt::AlignRight | Qt::AlignVCenter,
                             QStringLiteral("%1 %").arg(n.rowWeights[static_cast<std::size_t>(r)] * 100.0, 0, 'f', 1));
        }
    }
}

}  // namespace

namespace {

// Two swatches, orange then blue, and the words that say what they mean everywhere in the figure.
void paintSignLegend(QPainter& painter, const QRectF& rect, const QString& words, const QColor& text)
{
    const QFontMetricsF metrics(painter.font(), painter.device());
    const double side = metrics.ascent();
    double x = rect.left();
    for (const QColor& color : {positiveColor(), negativeColor()}) {
        painter.fillRect(QRectF(x, rect.center().y() - side / 2, side, side), color);
        x += side + 3;
    }
    painter.setPen(text);
    drawFittedText(painter, QRectF(x + 4, rect.top(), rect.right() - x - 4, rect.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, painter.font(), words);
}

void paintHeader(QPainter& painter, const StepGeometry& g, const StepTexts& texts, const StepNumbers& n,
                 const FigureOptions& options)
{
    const QColor text = options.text;
    QFont big = painter.font();
    big.setBold(true);
    big.setPointSizeF(big.pointSizeF() * 1.12);
    // Made smaller rather than cut when the figure is narrow (text_layout.hpp).
    painter.setPen(text);
    drawFittedText(painter, g.title, Qt::AlignLeft | Qt::AlignVCenter, big, texts.title);
    painter.setPen(muted(text));
    drawFittedText(painter, g.subtitle, Qt::AlignLeft | Qt::AlignVCenter, options.font, texts.subtitle);
    paintSignLegend(painter, g.signLegend, texts.signLegend, text);
    painter.setPen(text);
    painter.drawText(g.queryStripLabel, Qt::AlignLeft | Qt::AlignVCenter, Text::tr("queries:"));
    painter.drawText(g.keyStripLabel, Qt::AlignLeft | Qt::AlignVCenter, Text::tr("keys and values:"));
    painter.setRenderHint(QPainter::Antialiasing, true);
    drawChips(painter, g.queryChips, n.queryLabels, n.query, text, kQueryColor.lighter(150), n.queryEnd);
    // The figure's key: the selection's colour on screen, the weights' in an export.
    drawChips(painter, g.keyChips, n.keyLabels, n.key, text,
              options.showSelection ? kSelectionColor : kWeightColor.lighter(160));
    painter.setPen(text);
    for (std::size_t s = 0; s < 10; ++s) {
        drawName(painter, g.names[s], texts.names[s]);
        drawFormula(painter, g.formulas[s], texts.formulas[s]);
    }
}

// ① ② ③ and ⑥: q, k, their product and the softmax row.
void paintWeightSteps(QPainter& painter, const StepGeometry& g, const StepNumbers& n, const FigureOptions& options)
{
    const StepBarStyles styles = stepBarStyles(n, options);
    paintBars(painter, g.queryBars, n.q, styles.query);
    paintBars(painter, g.keyBars, n.k, styles.key);
    paintBars(painter, g.productBars, n.products, styles.product);
    paintBars(painter, g.softmaxBars, n.rowWeights, softmaxBarsStyle(n, options));
}

// Three colour ranges: the values, their weighted parts (each a_ij times smaller: with many keys
// they would vanish on the values' scale), and the head outputs (the sum and Concat).
struct ValuePictures {
    MatrixPicture values, parts, sum, concat;
    double outputsRange = 1;
};

ValuePictures valuePictures(const StepNumbers& n)
{
    ValuePictures p;
    p.values = makeSignedPicture(n.values);
    p.parts = makeSignedPicture(n.weightedValues);
    const qkv::MatrixF sum =
        Eigen::Map<const qkv::RowVectorF>(n.headOutput.data(), static_cast<qkv::Index>(n.headOutput.size()));
    const qkv::MatrixF concat =
        Eigen::Map<const qkv::RowVectorF>(n.concat.data(), static_cast<qkv::Index>(n.concat.size()));
    p.outputsRange = std::max(largestMagnitude(sum), largestMagnitude(concat));
    if (!(p.outputsRange > 0)) p.outputsRange = 1;
    p.sum = makePicture(sum, kDivergingColormap, -p.outputsRange, p.outputsRange);
    p.concat = makePicture(concat, kDivergingColormap, -p.outputsRange, p.outputsRange);
    return p;
}

// The words over ⑦'s and ⑧'s columns; over V_i, also the rule of its key labels when thinned.
void paintValueHeaders(QPainter& painter, const StepGeometry& g, const StepNumbers& n, const QString& labelRule)
{
    const QFontMetricsF metrics(painter.font(), painter.device());
    const double top = g.valueCells.top() - metrics.height() - 2;
    const QString values = Text::tr("v_j (rows of V_%1)").arg(n.head + 1);
    if (labelRule.isEmpty())
        painter.drawText(QRectF(g.valueCells.left(), top, g.valueCells.width(), metrics.height()), Qt::AlignCenter,
                         values);
    else  // over the labels too: the rule is about them
        drawFittedText(painter,
                       QRectF(g.valueLabels.left(), top, g.valueCells.right() - g.valueLabels.left(), metrics.height()),
                       Qt::AlignCenter, painter.font(), Text::tr("%1 · %2").arg(values, labelRule));
    painter.drawText(QRectF(g.weightColumn.left() - 8, top, g.weightColumn.width() + 16, metrics.height()),
                     Qt::AlignCenter, Text::tr("× a_ij"));
    painter.drawText(QRectF(g.weightedCells.left(), top, g.weightedCells.width(), metrics.height()), Qt::AlignCenter,
                     Text::tr("= a_ij v_j"));
}

// ⑦ V_i and ⑧ a_ij v_j with their sum.
void paintValueRows(QPainter& painter, const StepGeometry& g, const StepNumbers& n, const StepTexts& texts,
                    const ValuePictures& p, const FigureOptions& options)
{
    const QColor text = options.text, emphasis = emphasisColor(options);
    const QFontMetricsF metrics(painter.font(), painter.device());
    paintPicture(painter, g.valueCells, p.values);
    paintPicture(painter, g.weightedCells, p.parts);
    paintPicture(painter, g.sumCells, p.sum);
    painter.setRenderHint(QPainter::Antialiasing, false);
    QColor frame = text;
    frame.setAlpha(120);
    painter.setPen(QPen(frame, 1));
    painter.setBrush(Qt::NoBrush);
    for (const QRectF& r : {g.valueCells, g.weightedCells, g.sumCells}) painter.drawRect(r);
    const QString labelRule = drawRowLabels(painter, g.valueLabels, n.keyLabels, n.key, text, emphasis);
    drawWeightColumn(painter, g.weightColumn, n, text, emphasis);
    outlineRow(painter, g.valueCells, n.values.rows(), n.key, emphasis);
    outlineRow(painter, g.weightedCells, n.values.rows(), n.key, emphasis);
    painter.setPen(text);
    painter.drawText(QRectF(g.weightColumn.left(), g.sumCells.top(), g.weightColumn.width() + 6, g.sumCells.height()),
                     Qt::AlignRight | Qt::AlignVCenter, Text::tr("Σ_j ="));
    const double sumLabel = g.valueCells.right() - g.valueLabels.left();
    painter.drawText(QRectF(g.valueLabels.left(), g.sumCells.top(), sumLabel, g.sumCells.height()),
                     Qt::AlignLeft | Qt::AlignVCenter,
                     metrics.elidedText(n.isSpan() ? Text::tr("mean of head_%1 rows %2–%3 (1 × %4)")
                                                         .arg(n.head + 1)
                                                         .arg(n.query)
                                                         .arg(n.queryEnd - 1)
                                                         .arg(n.d_v)
                                                   : Text::tr("head_%1 row %2 (1 × %3)").arg(n.head + 1).arg(n.query).arg(n.d_v),
                                        Qt::ElideRight, sumLabel));
    paintValueHeaders(painter, g, n, labelRule);
    painter.setRenderHint(QPainter::Antialiasing, true);
    paintColorLegend(painter, g.valueLegend, p.values.colormap, p.values.minValue, p.values.maxValue,
                     texts.valueLegend);
    paintColorLegend(painter, g.weightedLegend, p.parts.colormap, p.parts.minValue, p.parts.maxValue,
                     texts.weightedLegend);
}

// ⑨ Concat: one strip, head blocks marked, switched-off heads hatched, labelled in one form
// (concat_labels.hpp).
void paintConcat(QPainter& painter, const StepGeometry& g, const StepNumbers& n, const StepTexts& texts,
                 const ValuePictures& p, const FigureOptions& options)
{
    const QColor text = options.text, emphasis = emphasisColor(options);
    paintPicture(painter, g.concatCells, p.concat);
    painter.setRenderHint(QPainter::Antialiasing, false);
    QColor frame = text;
    frame.setAlpha(120);
    for (std::size_t i = 0; i < g.headBlocks.size(); ++i) {
        const QRectF& block = g.headBlocks[i];
        if (i < n.ablated.size() && n.ablated[i]) {
            QColor hatch = text;
            hatch.setAlpha(110);
            painter.fillRect(block, QBrush(hatch, Qt::BDiagPattern));
        }
        const bool chosen = static_cast<int>(i) == n.head;
        painter.setPen(chosen ? QPen(emphasis, 2.5) : QPen(frame, 1));
        painter.drawRect(chosen ? block.adjusted(-1, -1, 1, 1) : block);
    }
    for (const BlockLabel& label :
         concatBlockLabels(g.headBlocks, g.concatLabels, n.head, QFontMetricsF(painter.font(), painter.device()))) {
        painter.setPen(label.head == n.head ? emphasis : text);
        painter.drawText(label.rect, Qt::AlignCenter, label.text);
    }
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setPen(text);
    paintColorLegend(painter, g.concatLegend, kDivergingColormap, -p.outputsRange, p.outputsRange,
                     texts.concatLegend);
}

}  // namespace

void paintSteps(QPainter& painter, const QRectF& target, const StepNumbers& n, const FigureOptions& options)
{
    painter.save();
    painter.setFont(options.font);
    painter.fillRect(target, options.background);
    painter.setPen(options.text);
    if (!n.valid) {
        painter.drawText(target, Qt::AlignCenter, Text::tr("No result yet, or the selected cell is outside it."));
        painter.restore();
        return;
    }
    const StepGeometry g = stepGeometry(target, n, QFontMetricsF(painter.font(), painter.device()));
    const StepTexts texts = stepTexts(n);
    paintHeader(painter, g, texts, n, options);
    paintWeightSteps(painter, g, n, options);
    const ValuePictures pictures = valuePictures(n);
    paintValueRows(painter, g, n, texts, pictures, options);
    paintConcat(painter, g, n, texts, pictures, options);
    paintBars(painter, g.outputBars, n.output, stepBarStyles(n, options).output);  // ⑩
    if (!g.fits) {
        painter.setPen(muted(options.text));
        painter.drawText(target.adjusted(0, 0, -4, -2), Qt::AlignRight | Qt::AlignBottom,
                         Text::tr("(crowded: enlarge the window)"));
    }
    painter.restore();
}

std::vector<Figure> stepsFigures()
{
    Figure figure;
    figure.name = QStringLiteral("steps");
    figure.title = Text::tr("Step by step: one query through the layer");
    figure.view = kStepViewId;
    figure.defaultSize = QSizeF(1400, 900);
    figure.longLayerText = &stepsLongLayerNote;
    figure.unavailable = [](const FigureInput& input) {
        if (!input.result) return whyNoResult(input);
        const qkv::AttentionResult& a = input.result->attention;
        // Heads are numbered from 1 for people, positions from 0 (docs/figures.md).
        if (input.options.head < 0 || input.options.head >= a.headCount())
            return Text::tr("There is no head %1: this result has %2 heads.")
                .arg(input.options.head + 1)
                .arg(a.headCount());
        if (input.options.query < 0 || input.options.query >= a.queryCount())
            return Text::tr("There is no query position %1: this result has %2 queries (from 0).")
                .arg(input.options.query)
                .arg(a.queryCount());
        if (input.options.key < 0 || input.options.key >= a.keyCount())
            return Text::tr("There is no key position %1: this result has %2 keys (from 0).")
                .arg(input.options.key)
                .arg(a.keyCount());
        return QString();
    };
    figure.paint = [](QPainter& painter, const QRectF& rect, const FigureInput& input) {
        const FigureOptions& o = input.options;
        const StepNumbers numbers =
            input.result ? gatherSpanStepNumbers(*input.result, static_cast<int>(o.head), static_cast<int>(o.query),
                                                 static_cast<int>(std::max(o.queryEnd, o.query + 1)),
                                                 static_cast<int>(o.key))
                         : StepNumbers{};
        paintSteps(painter, rect, numbers, o);
    };
    return {figure};
}

}  // namespace qkv::ui
