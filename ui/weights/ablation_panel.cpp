#include "ui/weights/ablation_panel.hpp"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/figures/figure_text.hpp"
#include "ui/figures/text_layout.hpp"
#include "ui/weights/head_weights_figures.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::AblationPanel)
};

const QColor kBar(0x4c, 0x72, 0xb0);
const QColor kSelectedBar(0xdd, 0x84, 0x52);

}  // namespace

void paintAblationPanel(QPainter& painter, const QRectF& rect, const HeadWeightsModel& model,
                        const FigureOptions& options)
{
    const QFontMetricsF metrics(options.font, painter.device());
    const double line = metrics.lineSpacing();
    QColor muted = options.text;
    muted.setAlpha(170);
    QFont bold = options.font;
    bold.setBold(true);
    const qkv::Result& r = model.result();
    const qkv::AblationEffects* e = model.effects();
    double y = rect.top();
    const auto wrapped = [&](const QFont& font, const QString& words) {
        y += drawWrappedText(painter, QPointF(rect.left(), y), rect.width(), Qt::AlignLeft | Qt::AlignTop, font, words);
    };
    painter.setPen(options.text);
    wrapped(bold, Text::tr("Switching one head off (ablation)"));
    if (!e) {
        painter.setPen(muted);
        wrapped(options.font, model.effectsError());
        return;
    }
    const qkv::Index query =
        std::clamp<qkv::Index>(options.query, 0, std::max<qkv::Index>(0, e->changeNorm.rows() - 1));
    const QString token = tokenName(r.queryLabels, query);
    wrapped(options.font, Text::tr("‖Δoutput‖ / ‖output‖ of query %1 when one head alone is off").arg(token));
    y += 4;

    // The sentences under the bars, measured first so the bars take what is left.
    const qkv::Index most = query < static_cast<qkv::Index>(e->mostImportantHead.size())
                                ? e->mostImportantHead[static_cast<std::size_t>(query)]
                                : -1;
    struct Sentence {
        QFont font;
        bool strong;
        QString text;
    };
    std::vector<Sentence> sentences{{bold, true, ablationSentence(model, model.head(), query)}};
    if (most >= 0)
        sentences.push_back({options.font, true,
                             Text::tr("Head %1 matters most for %2 (%3)")
                                 .arg(most + 1)
                                 .arg(token, percentText(e->relativeChange(query, most)))});
    sentences.push_back({options.font, false,
                         Text::tr("Head %1 over every query: %2 on average")
                             .arg(model.head() + 1)
                             .arg(percentText(e->meanRelativeChange(model.head())))});
    if (std::any_of(e->ablated.begin(), e->ablated.end(), [](bool b) { return b; }))
        sentences.push_back({options.font, false,
                             Text::tr("The heads switched off now move %1's output by %2")
                                 .arg(token, percentText(e->currentRelativeChange(query)))});
    double footer = 8;
    for (const Sentence& s : sentences) footer += wrappedTextHeight(painter, rect.width(), s.font, s.text);

    // The bars: one per head.
    const qkv::Index h = e->headCount();
    const double barsHeight = std::max(2.0 * h, rect.bottom() - y - footer);
    const double pitch = std::min(line * 1.5, barsHeight / static_cast<double>(std::max<qkv::Index>(h, 1)));
    const qkv::Index labelStep = pitch >= line ? 1 : static_cast<qkv::Index>(std::ceil(line / pitch));
    const double labelWidth = metrics.horizontalAdvance(Text::tr("Head %1 · off").arg(h)) + 8;
    const double valueWidth = metrics.horizontalAdvance(QStringLiteral("100.0%")) + 8;
    const double barLeft = rect.left() + labelWidth;
    const double barWidth = std::max(10.0, rect.width() - labelWidth - valueWidth);
    double largest = 0;
    for (qkv::Index i = 0; i < h; ++i)
        if (std::isfinite(e->relativeChange(query, i))) largest = std::max(largest, e->relativeChange(query, i));
    const double scale = largest > 0 ? largest : 1.0;
    for (qkv::Index i = 0; i < h; ++i) {
        const double top = y + static_cast<double>(i) * pitch;
        const double value = e->relativeChange(query, i);
        const bool selected = i == model.head();
        const double length = std::isfinite(value) ? barWidth * value / scale : 0;
        painter.fillRect(QRectF(barLeft, top + pitch * 0.15, std::max(length, 1.0), pitch * 0.7),
                         selected ? kSelectedBar : kBar);
        if (i % labelStep != 0 && !selected) continue;
        const bool off = i < static_cast<qkv::Index>(e->ablated.size()) && e->ablated[static_cast<std::size_t>(i)];
        const QRectF label(rect.left(), top + pitch / 2 - line / 2, labelWidth - 6, line);
        painter.setPen(options.text);
        drawFittedText(painter, label, Qt::AlignRight | Qt::AlignVCenter, i == most ? bold : options.font,
                       off ? Text::tr("Head %1 · off").arg(i + 1) : Text::tr("Head %1").arg(i + 1));
        drawFittedText(painter, QRectF(barLeft + length + 4, label.top(), valueWidth, line),
                       Qt::AlignLeft | Qt::AlignVCenter, options.font, percentText(value));
    }
    y += pitch * static_cast<double>(h) + 6;

    // The sentences.
    for (const Sentence& s : sentences) {
        painter.setPen(s.strong ? options.text : muted);
        wrapped(s.font, s.text);
    }
}

}  // namespace qkv::ui
