#pragma once
// Measures, on this machine, the two ways of computing one head's unscaled scores (float, as
// attention runs):
//   factored: (X_q W_i^Q)(X_kv W_i^K)^T
//   full:     (X_q W_i) X_kv^T with W_i = W_i^Q (W_i^K)^T formed beforehand (not timed)
// It measures rather than defines numbers: the FLOP counts come from core's cost model.
// Runs on one thread (OpenMP set to 1 for the call). Qt-free; the Costs tab runs it
// off the GUI thread (QtConcurrent).

#include <utility>
#include <vector>

#include "core/common/matrix.hpp"

namespace qkv::ui {

struct ScoreTiming {
    double factoredMilliseconds = 0.0;  // median per evaluation
    double fullMilliseconds = 0.0;      // median per evaluation
    // The spread of full / factored over the samples (each pairs the two ways measured one
    // after the other): the middle half lies between these (first and third quartile). The
    // machine's other work moves single samples; this says by how much.
    double ratioLow = 0.0, ratioHigh = 0.0;
    int repetitions = 0;                // samples the medians are taken over
    int evaluationsPerSample = 0;       // each sample times this many evaluations
    Index n_q = 0, n_k = 0, d_model = 0, d_k = 0;
    bool valid() const { return repetitions > 0; }
};

// xq: n_q x d_model, xkv: n_k x d_model, wq and wk: d_model x d_k (W_i^Q, W_i^K).
// Each sample runs enough evaluations to last ~minSampleMilliseconds, after one warm-up. When
// the middle half of the ratios is wider than 20 %, up to two more rounds of `repetitions`
// samples are taken (a busy moment passes).
ScoreTiming timeScoresBothWays(const MatrixF& xq, const MatrixF& xkv, const MatrixF& wq,
                               const MatrixF& wk, int repetitions = 7,
                               double minSampleMilliseconds = 2.0);

// The first and third quartile of `values` (linear between ranks); {0, 0} when empty.
std::pair<double, double> quartiles(std::vector<double> values);

}  // namespace qkv::ui
