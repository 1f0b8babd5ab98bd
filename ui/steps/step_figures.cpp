#include "ui/steps/step_figures.hpp"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/figures/figure_text.hpp"
#include "ui/render/number_format.hpp"
#include "ui/render/text_style.hpp"
#include "ui/steps/step_numbers.hpp"
#include "ui/steps/vector_bars.hpp"

namespace qkv::ui {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("StepFigures", text); }

constexpr double kMargin = 12.0;
constexpr double kGap = 8.0;

QString number(double value)
{
    if (std::isinf(value)) return value < 0 ? QStringLiteral("−∞") : QStringLiteral("+∞");
    return QString::number(value, 'f', 4);
}

// A step: its text (word-wrapped), then optional bars.
struct Step {
    QString text;
    const std::vector<float>* values = nullptr;
    VectorBarsStyle bars = {};
};

// Paints `steps` top to bottom in `column`: text at its wrapped height, the bars sharing what
// is left.
void paintColumn(QPainter& painter, const QRectF& column, std::vector<Step>& steps)
{
    const QFont base = painter.font();
    QFont bold = base;
    bold.setBold(true);
    const QFontMetricsF metrics(base, painter.device());
    const QFontMetricsF boldMetrics(bold, painter.device());
    double textHeight = 0;
    int barCount = 0;
    std::vector<double> heights;
    for (const Step& s : steps) {
        heights.push_back(boldMetrics.boundingRect(QRectF(0, 0, column.width(), 1e6), Qt::TextWordWrap, s.text).height());
        textHeight += heights.back() + kGap;
        if (s.values) ++barCount;
    }
    double labels = 0;
    for (Step& s : steps) {
        s.bars.labelHeight = vectorBarsLabelHeight(metrics, s.bars.labels);
        labels += s.bars.labelHeight;
    }
    const double barHeight = barCount ? std::max(40.0, (column.height() - textHeight - labels) / barCount) : 0;
    double y = column.top();
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const Step& s = steps[i];
        painter.setFont(bold);
        painter.drawText(QRectF(column.left(), y, column.width(), heights[i]), Qt::TextWordWrap | Qt::AlignLeft, s.text);
        y += heights[i] + 2;
        painter.setFont(base);
        if (s.values) {
            const double height = barHeight + s.bars.labelHeight;
            paintVectorBars(painter, QRectF(column.left(), y, column.width(), height), *s.values, s.bars);
            y += height;
        }
        y += kGap - 2;
    }
}

void paintSteps(QPainter& painter, const QRectF& rect, const FigureInput& input)
{
    const qkv::Result& r = *input.result;
    const FigureOptions& o = input.options;
    const StepNumbers n = gatherStepNumbers(r, static_cast<int>(o.head), static_cast<int>(o.query), static_cast<int>(o.key));
    if (!n.valid) return;
    const QRectF page = rect.adjusted(kMargin, kMargin, -kMargin, -kMargin);
    painter.setPen(o.text);

    const QFont base = painter.font();
    const QFont titleFont = figureTitleFont(base);
    const QString title = tr("Step by step · %1 · query «%2» (position %3) and key «%4» (position %5) · %6 · d_k = %7")
                              .arg(headTitle(n.head, o.headTitles), n.queryLabel)
                              .arg(n.query)
                              .arg(n.keyLabel)
                              .arg(n.key)
                              .arg(modeTitle(r.config.mode))
                              .arg(n.d_k);
    const QFontMetricsF titleMetrics(titleFont, painter.device());
    const double titleHeight = titleMetrics.boundingRect(QRectF(0, 0, page.width(), 1e6), Qt::TextWordWrap, title).height();
    painter.setFont(titleFont);
    painter.drawText(QRectF(page.left(), page.top(), page.width(), titleHeight), Qt::TextWordWrap | Qt::AlignLeft, title);
    painter.setFont(base);

    const QColor qColor(0x2c, 0x7f, 0xb8), kColor(0x1b, 0x9e, 0x77), productColor(0x75, 0x70, 0xb3);
    VectorBarsStyle style;
    style.text = o.text;
    style.grid = QColor(o.text.red(), o.text.green(), o.text.blue(), 90);
    const auto bars = [&](const QColor& positive, const QColor& negative) {
        VectorBarsStyle s = style;
        s.positive = positive;
        s.negative = negative;
        return s;
    };
    const int h = n.head + 1;
    std::vector<Step> left = {
        {tr("① Query vector q: row %1 of Q_%2 = X_q W_%2^Q (+ b_%2^Q), d_k = %3 entries").arg(n.query).arg(h).arg(n.d_k),
         &n.q, bars(qColor, qColor.lighter(140))},
        {tr("② Key vector k: row %1 of K_%2 = X_kv W_%2^K (+ b_%2^K)").arg(n.key).arg(h), &n.k,
         bars(kColor, kColor.lighter(140))},
        {tr("③ q ⊙ k, entry by entry; their sum is the %1 = %2").arg(rawScoreName(), number(n.dotProduct)), &n.products,
         bars(productColor, QColor(0xd9, 0x5f, 0x02))},
        {tr("④ %1 = %2 / %3 = %4").arg(scaledScoreName(), number(n.dotProduct), number(n.sqrtDk), number(n.scaledScore))},
        {n.masked ? tr("⑤ Masked: this key is hidden from this query, so its scaled score becomes −∞ and its weight 0")
                  : tr("⑤ Mask: this key is visible to this query; the scaled score stays %1").arg(number(n.scaledScore))},
    };
    VectorBarsStyle softmax = bars(qColor, qColor);
    softmax.percent = true;
    softmax.labels = n.keyLabels;
    softmax.highlighted = n.key;
    VectorBarsStyle contributions = bars(QColor(0x66, 0xa6, 0x1e), QColor(0x66, 0xa6, 0x1e));
    contributions.labels = n.keyLabels;
    contributions.highlighted = n.key;
    const QString weight = n.rowFullyMasked ? tr("every key of this query is masked: the row is all zeros")
                                            : tr("a = %1 (%2 %) for «%3»").arg(number(n.weight)).arg(n.weight * 100.0, 0, 'f', 1).arg(n.keyLabel);
    std::vector<Step> right = {
        {tr("⑥ Softmax over the row: the weight of every key (%1) for this query; %2").arg(keyAxisTitle(r.config.mode), weight),
         &n.rowWeights, softmax},
        {tr("⑦ Each value row's contribution |a_j v_j| to the head output"), &n.contributionNorms, contributions},
        {tr("⑧ Head output Σ_j a_j v_j: row %1 of head_%2, d_k = %3 entries").arg(n.query).arg(h).arg(n.d_k), &n.headOutput,
         bars(QColor(0xe7, 0x29, 0x8a), QColor(0xe7, 0x29, 0x8a).lighter(140))},
    };
    const double top = page.top() + titleHeight + 2 * kGap;
    const double columnWidth = (page.width() - 3 * kGap) / 2;
    paintColumn(painter, QRectF(page.left(), top, columnWidth, page.bottom() - top), left);
    paintColumn(painter, QRectF(page.left() + columnWidth + 3 * kGap, top, columnWidth, page.bottom() - top), right);
}

QString unavailable(const FigureInput& input)
{
    const qkv::AttentionResult& a = input.result->attention;
    const FigureOptions& o = input.options;
    if (o.head < 0 || o.head >= a.headCount()) return tr("head %1 does not exist (heads 1 to %2)").arg(o.head + 1).arg(a.headCount());
    if (o.query < 0 || o.query >= a.queryCount())
        return tr("query position %1 does not exist (0 to %2)").arg(o.query).arg(a.queryCount() - 1);
    if (o.key < 0 || o.key >= a.keyCount()) return tr("key position %1 does not exist (0 to %2)").arg(o.key).arg(a.keyCount() - 1);
    return {};
}

}  // namespace

std::vector<Figure> stepFigures()
{
    return {Figure{QStringLiteral("steps"), tr("Step by step"), QStringLiteral("steps"), QSizeF(1400, 900), QSizeF(1000, 700), &unavailable,
                   &paintSteps}};
}

}  // namespace qkv::ui
