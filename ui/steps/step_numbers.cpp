#include "ui/steps/step_numbers.hpp"

#include <cmath>
#include <limits>

#include "core/ops/soft_cap.hpp"

namespace qkv::ui {
namespace {

template <class Row> std::vector<float> toVector(const Row& row)
{
    std::vector<float> out(static_cast<std::size_t>(row.size()));
    for (qkv::Index i = 0; i < row.size(); ++i) out[static_cast<std::size_t>(i)] = row(i);
    return out;
}

QString labelAt(const std::vector<std::string>& labels, int i)
{
    return i >= 0 && i < static_cast<int>(labels.size()) ? QString::fromStdString(labels[static_cast<std::size_t>(i)])
                                                         : QString();
}

}  // namespace

StepNumbers gatherStepNumbers(const qkv::Result& result, int head, int query, int key)
{
    StepNumbers n;
    const qkv::AttentionResult& a = result.attention;
    if (head < 0 || head >= a.headCount() || query < 0 || query >= a.queryCount() || key < 0 || key >= a.keyCount())
        return n;
    n.valid = true;
    n.head = head;
    n.query = query;
    n.key = key;
    n.d_k = a.d_k();
    n.d_v = a.d_v();
    n.d_model = a.output.cols();
    n.concatWidth = a.headOutputs.cols();
    n.headCount = a.headCount();
    n.keyValueHead = a.grouping.keyValueHeadOf(head);
    n.keyValueHeadCount = a.grouping.keyValueHeadCount;
    n.mode = result.config.mode;
    n.sqrtDk = a.rawScoreFactor();
    n.scaled = a.scoreScale != 1.0f;
    n.rotary = a.queryBeforeRotation.size() > 0;
    n.rotaryDims = a.rotaryDims;
    n.softCap = a.scoreSoftCap;
    n.hasBias = result.weights && result.weights->hasBias();
    n.queryKeyNorm = result.weights && result.weights->hasQueryKeyNorm();
    n.queryLabel = labelAt(result.queryLabels, query);
    n.keyLabel = labelAt(result.keyLabels, key);
    for (int i = 0; i < a.queryCount(); ++i) n.queryLabels << labelAt(result.queryLabels, i);
    for (int j = 0; j < a.keyCount(); ++j) n.keyLabels << labelAt(result.keyLabels, j);

    // ① ② ③ q, k and their product (the scores use the rotated ones under rotary positions).
    const qkv::Index d_k = n.d_k;
    n.q = toVector(a.queryHead(head).row(query));
    n.k = toVector(a.keyHead(head).row(key));
    if (n.rotary) {
        n.qBeforeRotation = toVector(a.queryBeforeRotation.middleCols(head * d_k, d_k).row(query));
        n.kBeforeRotation = toVector(a.keyBeforeRotation.middleCols(n.keyValueHead * d_k, d_k).row(key));
    }
    n.products.resize(n.q.size());
    for (std::size_t d = 0; d < n.q.size(); ++d) n.products[d] = n.q[d] * n.k[d];

    // ④ ⑤ ⑥ scale, mask, softmax: the core's scores and weights.
    const qkv::HeadAttention& h = a.heads[static_cast<std::size_t>(head)];
    n.scaledScore = h.scores(query, key);
    const auto capped = [&](double s) { return qkv::softCapped(s, n.softCap); };
    n.cappedScore = capped(n.scaledScore);
    n.dotProduct = a.rawScore(head, query, key);
    n.masked = a.mask.masked(query, key);
    n.rowFullyMasked =
        query < static_cast<int>(a.fullyMaskedRows.size()) && a.fullyMaskedRows[static_cast<std::size_t>(query)];
    n.rowScores = toVector(h.scores.row(query));
    for (float& s : n.rowScores) s = static_cast<float>(capped(s));  // what the softmax reads
    n.keyMasked.assign(static_cast<std::size_t>(a.keyCount()), false);
    for (int j = 0; j < a.keyCount(); ++j)
        if (a.mask.masked(query, j)) {
            n.keyMasked[static_cast<std::size_t>(j)] = true;
            n.rowScores[static_cast<std::size_t>(j)] = -std::numeric_limits<float>::infinity();
        }
    n.rowWeights = toVector(h.attention.row(query));
    n.weight = h.attention(query, key);

    // ⑦ ⑧ V_i and the head output as the weighted sum of its rows.
    n.values = a.valueHead(head);  // n_k x d_v
    n.v = toVector(n.values.row(key));
    n.weightedValues = n.values;
    for (qkv::Index j = 0; j < n.values.rows(); ++j) n.weightedValues.row(j) *= h.attention(query, j);
    for (qkv::Index j = 0; j < n.values.rows(); ++j) n.contributionNorms.push_back(n.weightedValues.row(j).norm());
    n.headOutput = toVector(a.headOutput(head).row(query));

    // ⑨ ⑩ Concat as W^O receives it (switched-off heads' blocks zeroed) and the output row.
    n.ablated.assign(static_cast<std::size_t>(a.headCount()), false);
    n.concat = toVector(a.headOutputs.row(query));
    for (qkv::Index i = 0; i < a.headCount(); ++i) {
        if (!a.isAblated(i)) continue;
        n.ablated[static_cast<std::size_t>(i)] = true;
        for (qkv::Index d = 0; d < n.d_v; ++d) n.concat[static_cast<std::size_t>(i * n.d_v + d)] = 0.0f;
    }
    n.headAblated = a.isAblated(head);
    n.output = toVector(a.output.row(query));
    return n;
}

namespace {

// The mean of rows [first, end) of `m` (a matrix or a block of one), as a vector.
template <class Matrix> std::vector<float> meanRow(const Matrix& m, int first, int end)
{
    return toVector(m.middleRows(first, end - first).template cast<double>().colwise().mean().template cast<float>());
}

// The span's mean of the steps up to the scores (linear in q): q̄, q̄ ⊙ k, q̄·k and the scores.
void meanScores(StepNumbers& n, const qkv::AttentionResult& a, const qkv::HeadAttention& h, int first, int end)
{
    n.q = meanRow(a.queryHead(n.head), first, end);
    if (n.rotary) n.qBeforeRotation = meanRow(a.queryBeforeRotation.middleCols(n.head * n.d_k, n.d_k), first, end);
    for (std::size_t d = 0; d < n.q.size(); ++d) n.products[d] = n.q[d] * n.k[d];
    const auto capped = [&](double s) { return qkv::softCapped(s, n.softCap); };
    const auto size = static_cast<double>(end - first);
    double dot = 0, scaled = 0, cappedSum = 0;
    std::vector<double> rowSums(static_cast<std::size_t>(a.keyCount()), 0.0);
    std::vector<int> seen(static_cast<std::size_t>(a.keyCount()), 0);
    bool allFullyMasked = true;
    for (int q = first; q < end; ++q) {
        dot += a.rawScore(n.head, q, n.key);
        scaled += h.scores(q, n.key);
        cappedSum += capped(h.scores(q, n.key));
        allFullyMasked = allFullyMasked && q < static_cast<int>(a.fullyMaskedRows.size()) &&
                         a.fullyMaskedRows[static_cast<std::size_t>(q)];
        for (int j = 0; j < a.keyCount(); ++j)
            if (!a.mask.masked(q, j)) {
                rowSums[static_cast<std::size_t>(j)] += capped(h.scores(q, j));
                ++seen[static_cast<std::size_t>(j)];
            }
    }
    n.dotProduct = dot / size;
    n.scaledScore = scaled / size;
    n.cappedScore = cappedSum / size;
    n.rowFullyMasked = allFullyMasked;
    // What the softmaxes see, per key: the mean over the queries that see it; −∞ where none does.
    for (int j = 0; j < a.keyCount(); ++j) {
        const auto at = static_cast<std::size_t>(j);
        n.keyMasked[at] = seen[at] == 0;
        n.rowScores[at] = seen[at] == 0 ? -std::numeric_limits<float>::infinity()
                                        : static_cast<float>(rowSums[at] / seen[at]);
    }
    n.masked = n.keyMasked[static_cast<std::size_t>(n.key)];
}

}  // namespace

StepNumbers gatherSpanStepNumbers(const qkv::Result& result, int head, int first, int end, int key)
{
    const qkv::AttentionResult& a = result.attention;
    if (end <= first + 1 || first < 0 || end > a.queryCount()) return gatherStepNumbers(result, head, first, key);
    StepNumbers n = gatherStepNumbers(result, head, first, key);  // k, V and the shapes are the span's too
    if (!n.valid) return n;
    n.queryEnd = end;
    n.queryLabel = QStringLiteral("%1–%2").arg(first).arg(end - 1);
    const qkv::HeadAttention& h = a.heads[static_cast<std::size_t>(head)];
    meanScores(n, a, h, first, end);

    // ⑥ the mean of the softmax rows; ⑦ ⑧ weighted by it; ⑨ ⑩ the mean rows (all linear in a).
    n.rowWeights = meanRow(h.attention, first, end);
    n.weight = n.rowWeights[static_cast<std::size_t>(key)];
    n.contributionNorms.clear();
    for (qkv::Index j = 0; j < n.values.rows(); ++j) {
        n.weightedValues.row(j) = n.values.row(j) * n.rowWeights[static_cast<std::size_t>(j)];
        n.contributionNorms.push_back(n.weightedValues.row(j).norm());
    }
    n.headOutput = meanRow(a.headOutput(head), first, end);
    n.concat = meanRow(a.headOutputs, first, end);
    for (qkv::Index i = 0; i < a.headCount(); ++i)
        if (a.isAblated(i))
            for (qkv::Index d = 0; d < n.d_v; ++d) n.concat[static_cast<std::size_t>(i * n.d_v + d)] = 0.0f;
    n.output = meanRow(a.output, first, end);
    return n;
}

}  // namespace qkv::ui
