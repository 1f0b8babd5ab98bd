#include "ui/heads/pooled_panels.hpp"

#include <QCoreApplication>

#include <utility>

#include "core/analysis/pooled_heads.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::PooledPanels)
};

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
    qkv::PooledHeadMaps maps = qkv::pooledHeadMaps(result, maxima, withAverage);
    out.panels = std::move(maps.panels);
    out.rowEdges = std::move(maps.rowEdges);
    out.columnEdges = std::move(maps.columnEdges);
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

}  // namespace qkv::ui
