#include "ui/wholemodel/whole_model_figure_parts.hpp"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>

#include "core/pipeline/model_overview.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::WholeModelFigures)
};

}  // namespace

QString whyNoModelOverview(const FigureInput& input)
{
    if (const QString none = whyNoResult(input); !none.isEmpty()) return none;
    if (!input.overview)
        return Text::tr("These figures draw every layer of a checkpoint's model, and the weights shown are not a "
                        "layer of a model that runs whole here: open one with File > Open Checkpoint… (BERT, "
                        "RoBERTa, DistilBERT, GPT-2, LLaMA, Mistral, Qwen2, Qwen3, Gemma 2 and 3, Phi-3, OLMo 2, "
                        "GPT-NeoX, BART, Marian).");
    if (input.overview->layerCount() == 0) return Text::tr("The model has no attention layer.");
    return {};
}

void paintFigureHeading(QPainter& painter, const QRectF& titleRect, const QRectF& subtitleRect, const QString& title,
                        const QString& subtitle, const FigureOptions& options)
{
    QFont big = options.font;
    big.setBold(true);
    big.setPointSizeF(big.pointSizeF() * 1.12);
    painter.setFont(big);
    painter.setPen(options.text);
    painter.drawText(titleRect, Qt::AlignLeft | Qt::AlignVCenter,
                     QFontMetricsF(big, painter.device()).elidedText(title, Qt::ElideRight, titleRect.width()));
    painter.setFont(options.font);
    QColor muted = options.text;
    muted.setAlpha(170);
    painter.setPen(muted);
    painter.drawText(subtitleRect, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, subtitle);
}

}  // namespace qkv::ui
