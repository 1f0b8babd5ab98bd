#include "ui/heads/cell_tooltip.hpp"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

#include "ui/figures/figure_text.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::CellToolTip)
};

// "«chat» (position 3)": escaped for a tooltip's HTML, as it is for a plain sentence.
QString label(const std::vector<std::string>& labels, int index, bool html = true)
{
    const QString text = index < static_cast<int>(labels.size())
                             ? QString::fromStdString(labels[static_cast<std::size_t>(index)])
                             : QString();
    return Text::tr("«%1» (position %2)").arg(html ? text.toHtmlEscaped() : text).arg(index);  // positions from 0
}

// The panel's title, as the tooltip's first line and the sentence's first words.
QString panelTitle(int head, bool layer)
{
    return head >= 0 ? Text::tr("Head %1").arg(head + 1) : layer ? Text::tr("Layer (all heads)") : Text::tr("Average of heads");
}

// A weight as the tooltip writes it ("41.0 %").
QString percent(double weight) { return Text::tr("%1 %").arg(weight * 100.0, 0, 'f', 1); }

double meanWeight(const qkv::AttentionResult& a, int queryRow, int keyColumn)
{
    double sum = 0;
    for (const qkv::HeadAttention& h : a.heads) sum += h.attention(queryRow, keyColumn);
    return a.heads.empty() ? 0.0 : sum / static_cast<double>(a.heads.size());
}

// A block's mean and largest weight in head `head` (-1: the heads' mean of each).
std::pair<double, double> pooledWeights(const std::vector<qkv::StreamedAttention>& heads, int head, int row, int column)
{
    double mean = 0, largest = 0;
    const int first = head >= 0 ? head : 0, end = head >= 0 ? head + 1 : static_cast<int>(heads.size());
    for (int h = first; h < end; ++h) {
        mean += heads[static_cast<std::size_t>(h)].pooled.mean(row, column);
        largest += heads[static_cast<std::size_t>(h)].pooled.max(row, column);
    }
    const double count = static_cast<double>(end - first);
    return {mean / count, largest / count};
}

QString blockSpan(std::pair<qkv::Index, qkv::Index> positions)
{
    return positions.second - positions.first == 1 ? QString::number(positions.first)
                                                    : Text::tr("%1–%2").arg(positions.first).arg(positions.second - 1);
}

// The layer panel of value-weighted attention: N(q, j) and what it is.
QString layerNormText(const qkv::AttentionResult& a, const qkv::ValueNorms& norms, int queryRow, int keyColumn)
{
    QString text = Text::tr(
                       "Value-weighted ‖Σ a·f(x)‖: %1<br>the length of what this key adds to this query's "
                       "output through all heads together")
                       .arg(norms.layer(queryRow, keyColumn), 0, 'f', 4);
    if (std::count(a.ablated.begin(), a.ablated.end(), true) > 0) text += Text::tr(" (heads switched off left out)");
    return text;
}

// A head's N_i(q, j) = a ||f(x_j)|| and what it is.
QString headNormText(const qkv::AttentionResult& a, const qkv::ValueNorms& norms, int head, int queryRow, int keyColumn)
{
    const double transformed = norms.transformedNorms(keyColumn, head);
    QString text = Text::tr(
                       "<br>Value-weighted ‖a·f(x)‖: %1 (the weight times ‖f(x)‖ = %2)<br>"
                       "the length of what this key adds to this query's output through this head")
                       .arg(norms.heads[static_cast<std::size_t>(head)](queryRow, keyColumn), 0, 'f', 4)
                       .arg(transformed, 0, 'f', 4);
    if (a.isAblated(head)) text += Text::tr("<br><i>Switched off: what it would add if switched on.</i>");
    return text;
}

}  // namespace

QString cellToolTip(const qkv::Result& result, int head, int queryRow, int keyColumn, const qkv::ValueNorms* norms)
{
    const qkv::AttentionResult& a = result.attention;
    if (queryRow < 0 || keyColumn < 0 || queryRow >= a.queryCount() || keyColumn >= a.keyCount()) return {};
    if (norms && (norms->headCount() != a.headCount() || norms->layer.rows() != a.queryCount() ||
                  norms->layer.cols() != a.keyCount()))
        norms = nullptr;  // another result's: never show numbers that are not this cell's
    const bool masked = a.mask.masked(queryRow, keyColumn);
    const QString panel = panelTitle(head, norms != nullptr);
    QString text = QStringLiteral("<b>%1</b><br>").arg(panel);
    text += Text::tr("Query: %1<br>Key: %2<br>")
                .arg(label(result.queryLabels, queryRow), label(result.keyLabels, keyColumn));
    if (head < 0 && norms) return text + layerNormText(a, *norms, queryRow, keyColumn);
    if (head < 0) return text + Text::tr("Mean weight: %1").arg(percent(meanWeight(a, queryRow, keyColumn)));
    if (head >= a.headCount()) return {};
    const qkv::HeadAttention& h = a.heads[static_cast<std::size_t>(head)];
    const double scaled = h.scores(queryRow, keyColumn);
    const double raw = a.rawScore(head, queryRow, keyColumn);
    text += Text::tr("Weight: %1").arg(percent(h.attention(queryRow, keyColumn)));
    if (norms) text += headNormText(a, *norms, head, queryRow, keyColumn);
    // One name per quantity (figure_text.hpp), as in the colour bars and the step view.
    const auto capitalised = [](QString name) { return name.isEmpty() ? name : name.left(1).toUpper() + name.mid(1); };
    text += QStringLiteral("<br>%1: %2").arg(capitalised(rawScoreName()).toHtmlEscaped()).arg(raw, 0, 'f', 4);
    if (a.rawScoreFactor() != 1.0)
        text += QStringLiteral("<br>%1: %2").arg(capitalised(scaledScoreName()).toHtmlEscaped()).arg(scaled, 0, 'f', 4);
    if (masked) text += Text::tr("<br><i>Masked: this key is hidden from this query (score −∞ after the mask).</i>");
    return text;
}

QString pooledCellToolTip(const qkv::Result& result, int head, int row, int column,
                          std::pair<qkv::Index, qkv::Index> queries, std::pair<qkv::Index, qkv::Index> keys)
{
    const std::vector<qkv::StreamedAttention>& heads = result.streamedHeads;
    if (heads.empty() || head >= static_cast<int>(heads.size()) || row < 0 || column < 0) return {};
    const qkv::PooledAttention& first = heads.front().pooled;
    if (row >= first.mean.rows() || column >= first.mean.cols()) return {};
    const auto [mean, largest] = pooledWeights(heads, head, row, column);
    const auto span = blockSpan;
    const QString panel = head >= 0 ? Text::tr("Head %1").arg(head + 1) : Text::tr("Mean of the heads");
    return Text::tr("<b>%1</b> · queries %2 × keys %3 (a block of %4 × %5 positions)<br>"
                    "mean weight %6 · largest weight %7<br>"
                    "<i>Click to select its first query and key: their exact row and region are drawn below.</i>")
        .arg(panel, span(queries), span(keys))
        .arg(queries.second - queries.first)
        .arg(keys.second - keys.first)
        .arg(mean, 0, 'g', 4)
        .arg(largest, 0, 'g', 4);
}

QString cellSentence(const qkv::Result& result, int head, int queryRow, int keyColumn, const qkv::ValueNorms* norms)
{
    const qkv::AttentionResult& a = result.attention;
    if (queryRow < 0 || keyColumn < 0 || queryRow >= a.queryCount() || keyColumn >= a.keyCount() ||
        head >= a.headCount())
        return {};
    if (norms && (norms->headCount() != a.headCount() || norms->layer.rows() != a.queryCount() ||
                  norms->layer.cols() != a.keyCount()))
        norms = nullptr;  // another result's (as in the tooltip)
    const QString where = Text::tr("%1, query %2, key %3")
                              .arg(panelTitle(head, norms != nullptr), label(result.queryLabels, queryRow, false),
                                   label(result.keyLabels, keyColumn, false));
    if (a.mask.masked(queryRow, keyColumn)) return Text::tr("%1: masked").arg(where);
    if (head < 0 && norms)
        return Text::tr("%1: value-weighted norm %2").arg(where).arg(norms->layer(queryRow, keyColumn), 0, 'f', 4);
    if (head < 0) return Text::tr("%1: mean weight %2").arg(where, percent(meanWeight(a, queryRow, keyColumn)));
    // What the eye reads from a row of the map: its darkest cell (rows sum to 1, eq. softmax).
    const auto& weights = a.heads[static_cast<std::size_t>(head)].attention;
    const float weight = weights(queryRow, keyColumn);
    const bool largest = weight > 0 && weight >= weights.row(queryRow).maxCoeff();
    QString text = Text::tr("%1: weight %2").arg(where, percent(weight));
    if (largest) text += Text::tr(" (largest in its row)");
    if (a.isAblated(head)) text += Text::tr(", head switched off");
    return text;
}

QString pooledCellSentence(const qkv::Result& result, int head, int row, int column,
                           std::pair<qkv::Index, qkv::Index> queries, std::pair<qkv::Index, qkv::Index> keys)
{
    const std::vector<qkv::StreamedAttention>& heads = result.streamedHeads;
    if (heads.empty() || head >= static_cast<int>(heads.size()) || row < 0 || column < 0) return {};
    const qkv::PooledAttention& first = heads.front().pooled;
    if (row >= first.mean.rows() || column >= first.mean.cols()) return {};
    const auto [mean, largest] = pooledWeights(heads, head, row, column);
    const QString panel = head >= 0 ? Text::tr("Head %1").arg(head + 1) : Text::tr("Mean of the heads");
    return Text::tr("%1, queries %2, keys %3: mean weight %4, largest weight %5")
        .arg(panel, blockSpan(queries), blockSpan(keys))
        .arg(mean, 0, 'g', 4)
        .arg(largest, 0, 'g', 4);
}

}  // namespace qkv::ui
