#pragma once
// The compare view's numbers: for every head, the difference between the
// pinned result's attention and the live one ("what changed when I doubled W^Q"), or between
// every head and a reference head of the same result ("head 2 against head 3"), as attention
// weights or scaled scores (q·k/√d_k). Results whose shapes differ (another sentence, another
// h) give a message instead of numbers.
//
// Symbols: n_q queries, n_k keys, h heads. Differences are n_q x n_k per head, NaN where the
// pair is masked in either result (no number to compare).

#include <QString>

#include <memory>
#include <vector>

#include "core/pipeline/compute.hpp"
#include "ui/matrices/matrix_picture.hpp"

namespace qkv::ui {

enum class CompareMode {
    PinnedMinusLive,      // pinned − live, head by head
    HeadsMinusReference,  // head i − reference head, same result
};
enum class CompareQuantity {
    Attention,     // A_i
    ScaledScores,  // q·k/√d_k (before the mask)
};

// Empty when `pinned` and `live` can be compared head by head; else why not, in words.
QString compareShapeProblem(const qkv::Result& pinned, const qkv::Result& live);

struct AttentionDifference {
    CompareMode mode = CompareMode::PinnedMinusLive;
    CompareQuantity quantity = CompareQuantity::Attention;
    qkv::Index reference = 0;  // HeadsMinusReference: the reference head
    QString problem;           // non-empty: nothing to show, this says why
    std::shared_ptr<const qkv::Result> live, pinned;
    std::vector<qkv::MatrixF> differences;  // h entries, n_q x n_k
    std::vector<double> largest;            // h entries: max |difference| of each head
    double range = 0;                       // max |difference| over every head (0: identical)
    double colourRange = 1;                 // the colour range ± colourRange, shared by every head
    std::vector<MatrixPicture> pictures;    // h entries

    bool ok() const { return problem.isEmpty(); }
    // The two values a difference was made of (pinned or head, live or reference) at a cell.
    double left(qkv::Index head, qkv::Index query, qkv::Index key) const;
    double right(qkv::Index head, qkv::Index query, qkv::Index key) const;

    // pinned − live. `pinned` may be null (then the problem says to pin first).
    static std::shared_ptr<const AttentionDifference> pinnedMinusLive(std::shared_ptr<const qkv::Result> pinned,
                                                                      std::shared_ptr<const qkv::Result> live,
                                                                      CompareQuantity quantity);
    // head i − reference, for every head i of `live`.
    static std::shared_ptr<const AttentionDifference> headsMinusReference(std::shared_ptr<const qkv::Result> live,
                                                                          qkv::Index reference,
                                                                          CompareQuantity quantity);
};

// "difference in attention weight (pinned − live)", for the colour bar.
QString differenceLegend(const AttentionDifference& difference);

}  // namespace qkv::ui
