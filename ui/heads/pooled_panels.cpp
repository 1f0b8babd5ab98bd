#include "ui/heads/pooled_panels.hpp"

#include <QCoreApplication>

#include <algorithm>
#include <limits>

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::PooledPanels)
};

// Whether some cell of rows [r0, r1) x keys [c0, c1) is visible. visibleBegin and visibleEnd grow
// with the query, so the first row that reaches past c0 decides.
bool blockHasVisibleCell(const qkv::AttentionMask& mask, qkv::Index keyCount, qkv::Index r0, qkv::Index r1,
                         qkv::Index c0, qkv::Index c1)
{
    for (qkv::Index q = r0; q < r1; ++q)
        if (mask.visibleEnd(q, keyCount) > c0) return mask.visibleBegin(q) < c1;
    return false;
}

// NaN over the blocks no visible cell falls in (one matrix for every head: they share the mask).
qkv::MatrixF hiddenBlocks(const qkv::Result& result, const std::vector<qkv::Index>& rows,
                          const std::vector<qkv::Index>& columns)
{
    const auto r = static_cast<qkv::Index>(rows.size()) - 1, c = static_cast<qkv::Index>(columns.size()) - 1;
    qkv::MatrixF hidden = qkv::MatrixF::Zero(r, c);
    const qkv::AttentionMask& mask = result.attention.mask;
    if (!mask.causal) return hidden;
    const qkv::Index keys = result.attention.keyCount();
    for (qkv::Index i = 0; i < r; ++i)
        for (qkv::Index j = 0; j < c; ++j)
            if (!blockHasVisibleCell(mask, keys, rows[static_cast<std::size_t>(i)], rows[static_cast<std::size_t>(i) + 1],
                                     columns[static_cast<std::size_t>(j)], columns[static_cast<std::size_t>(j) + 1]))
                hidden(i, j) = std::numeric_limits<float>::quiet_NaN();
    return hidden;
}

}  // namespace

PooledPanels pooledPanels(const qkv::Result& result, bool attentionWeights, bool maxima, bool withAverage)
{
    PooledPanels out;
    if (!result.streamed()) return out;
    if (!attentionWeights) {
        out.error = Text::tr("a long layer keeps each head's attention weights pooled, not its scores or "
                             "value-weighted norms: show Attention weights, or write them with qkv-studio export "
                             "--rows/--cols (exact scores) or --pool (value_norms_pool)");
        return out;
    }
    const qkv::PooledAttention& first = result.streamedHeads.front().pooled;
    out.rowEdges = first.rowEdges;
    out.columnEdges = first.columnEdges;
    const qkv::MatrixF hidden = hiddenBlocks(result, out.rowEdges, out.columnEdges);
    qkv::MatrixF sum = qkv::MatrixF::Zero(hidden.rows(), hidden.cols());
    for (const qkv::StreamedAttention& head : result.streamedHeads) {
        qkv::MatrixF shown = (maxima ? head.pooled.max : head.pooled.mean) + hidden;  // NaN + x = NaN
        if (withAverage) sum += shown;
        out.panels.push_back(std::make_shared<const qkv::MatrixF>(std::move(shown)));
    }
    if (withAverage)
        out.panels.push_back(
            std::make_shared<const qkv::MatrixF>(sum / static_cast<float>(result.streamedHeads.size())));
    return out;
}

QStringList pooledLabels(const std::vector<qkv::Index>& edges, const std::vector<std::string>& tokens)
{
    QStringList labels;
    for (std::size_t b = 0; b + 1 < edges.size(); ++b) {
        const qkv::Index first = edges[b];
        const bool oneToken = edges[b + 1] - first == 1 && first < static_cast<qkv::Index>(tokens.size());
        labels << (oneToken ? QString::fromStdString(tokens[static_cast<std::size_t>(first)]) : QString::number(first));
    }
    return labels;
}

int blockOfPosition(const std::vector<qkv::Index>& edges, qkv::Index position)
{
    if (edges.size() < 2 || position < edges.front() || position >= edges.back()) return -1;
    const auto after = std::upper_bound(edges.begin(), edges.end(), position);
    return static_cast<int>(after - edges.begin()) - 1;
}

}  // namespace qkv::ui
