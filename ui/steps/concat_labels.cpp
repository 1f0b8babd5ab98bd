#include "ui/steps/concat_labels.hpp"

#include <algorithm>
#include <cmath>

#include "ui/figures/figure_text.hpp"

namespace qkv::ui {
namespace {

constexpr double kGap = 4.0;  // between two labels

// The label of head `head` centred under `block`, moved inside `row`.
BlockLabel labelUnder(int head, const QString& text, const QRectF& block, const QRectF& row,
                      const QFontMetricsF& metrics)
{
    const double width = metrics.horizontalAdvance(text) + 2;
    const double left =
        std::clamp(block.center().x() - width / 2, row.left(), std::max(row.left(), row.right() - width));
    return {head, text, QRectF(left, row.top(), width, row.height())};
}

// The labels of every `every`-th head (and the chosen one) in one form; empty when two touch.
std::vector<BlockLabel> tryLabels(const std::vector<QRectF>& blocks, const QRectF& row, int chosen, int every,
                                  bool named, const QFontMetricsF& metrics)
{
    std::vector<BlockLabel> labels;
    const int count = static_cast<int>(blocks.size());
    for (int i = 0; i < count; ++i) {
        const bool nearChosen = chosen >= 0 && i != chosen && std::abs(i - chosen) < every;
        if ((i % every != 0 || nearChosen) && i != chosen) continue;
        const QString text = named ? headName(i) : QString::number(i + 1);
        labels.push_back(labelUnder(i, text, blocks[static_cast<std::size_t>(i)], row, metrics));
    }
    for (std::size_t i = 1; i < labels.size(); ++i)
        if (labels[i].rect.left() < labels[i - 1].rect.right() + kGap) return {};
    return labels;
}

}  // namespace

std::vector<BlockLabel> concatBlockLabels(const std::vector<QRectF>& blocks, const QRectF& row, int chosen,
                                          const QFontMetricsF& metrics)
{
    if (blocks.empty()) return {};
    if (auto named = tryLabels(blocks, row, chosen, 1, true, metrics); !named.empty()) return named;
    const int count = static_cast<int>(blocks.size());
    for (int every = 1; every < count; ++every)
        if (auto numbers = tryLabels(blocks, row, chosen, every, false, metrics); !numbers.empty()) return numbers;
    return {labelUnder(std::max(chosen, 0), QString::number(std::max(chosen, 0) + 1),
                       blocks[static_cast<std::size_t>(std::clamp(chosen, 0, count - 1))], row, metrics)};
}

}  // namespace qkv::ui
