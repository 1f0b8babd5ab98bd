#include "ui/steps/step_numbers.hpp"

#include <cmath>
#include <limits>

namespace qkv::ui {
namespace {

std::vector<float> toVector(const Eigen::Ref<const qkv::RowVectorF>& row)
{
    return std::vector<float>(row.data(), row.data() + row.size());
}

}  // namespace

StepNumbers gatherStepNumbers(const qkv::Result& result, int head, int query, int key)
{
    StepNumbers n;
    const qkv::AttentionResult& a = result.attention;
    if (head < 0 || head >= a.headCount() || query < 0 || query >= a.queryCount() || key < 0 ||
        key >= a.keyCount())
        return n;
    n.valid = true;
    n.head = head;
    n.query = query;
    n.key = key;
    n.d_k = a.d_k();
    n.sqrtDk = a.rawScoreFactor();
    const auto label = [](const std::vector<std::string>& labels, int i) {
        return i < static_cast<int>(labels.size()) ? QString::fromStdString(labels[static_cast<std::size_t>(i)])
                                                   : QString();
    };
    n.queryLabel = label(result.queryLabels, query);
    n.keyLabel = label(result.keyLabels, key);
    for (int j = 0; j < a.keyCount(); ++j) n.keyLabels << label(result.keyLabels, j);

    const qkv::RowVectorF q = a.queryHead(head).row(query);
    const qkv::RowVectorF k = a.keyHead(head).row(key);
    n.q = toVector(q);
    n.k = toVector(k);
    n.products = toVector(q.cwiseProduct(k));

    const qkv::HeadAttention& h = a.heads[static_cast<std::size_t>(head)];
    n.scaledScore = h.scores(query, key);
    n.dotProduct = a.rawScore(head, query, key);
    n.masked = a.mask.masked(query, key);
    n.rowFullyMasked = query < static_cast<int>(a.fullyMaskedRows.size()) && a.fullyMaskedRows[static_cast<std::size_t>(query)];
    n.rowScores = toVector(h.scores.row(query));
    for (int j = 0; j < a.keyCount(); ++j)
        if (a.mask.masked(query, j)) n.rowScores[static_cast<std::size_t>(j)] = -std::numeric_limits<float>::infinity();
    n.rowWeights = toVector(h.attention.row(query));
    n.weight = h.attention(query, key);
    for (int j = 0; j < a.keyCount(); ++j) {
        const qkv::RowVectorF v = a.valueHead(head).row(j);
        n.contributionNorms.push_back(h.attention(query, j) * v.norm());
    }
    n.headOutput = toVector(a.headOutput(head).row(query));
    return n;
}

}  // namespace qkv::ui
