#pragma once
// Everything the factored view draws for one head of one Result, computed once per
// (Result, head) and then only read: the factors, the spectrum (from the factors) and the
// scores both ways. Views read Results; nothing here computes attention.

#include <memory>
#include <optional>
#include <vector>

#include "core/factored/factored_matrix.hpp"
#include "core/pipeline/compute.hpp"

namespace qkv::ui {

struct FactoredHeadModel {
    std::shared_ptr<const Result> result;
    Index head = 0;
    Index headCount = 0;  // h
    Index d_model = 0;
    Index d_k = 0;
    std::optional<FactoredMatrix> factored;  // W_i^Q, W_i^K of `head`
    // max |w| over each head's d_k columns of the fused W^Q, one per head: the fused layout's colour
    // ranges, found once here rather than by scanning d_model x d_model weights on every paint.
    std::vector<double> headLargestQueryWeights;
    ScoresBothWays scores;                   // n_q x n_k both ways, and core's report
    bool scoresReady = false;                // false until scoresBothWays() has run

    bool valid() const { return factored.has_value(); }
    bool hasBias() const { return result && result->weights->hasBias(); }

    // Spectrum summary (from the factors, never the dense SVD).
    Index numericalRank() const { return valid() ? factored->numericalRank() : 0; }

    // An invalid (empty) model when `result` is null or the weights cannot be factored;
    // `head` is clamped to [0, h). With withScores false the scores are left for
    // withScoresComputed() (the expensive part: it forms the dense W_i, O(d_model^2 d_k)).
    static FactoredHeadModel build(std::shared_ptr<const Result> result, Index head,
                                   bool withScores = true);
    // A copy with the scores both ways filled in; safe on any thread (reads only).
    FactoredHeadModel withScoresComputed() const;
    // Multiply-adds of the scores both ways, to decide whether they run off the GUI thread.
    double scoreWork() const;
    // Multiply-adds (and copies) of build() without the scores for any head of `result`: the
    // factors and the spectrum, O(d_model d_k^2 + d_k^3). 0 without a result.
    static double factorWork(const Result* result);
};

}  // namespace qkv::ui
