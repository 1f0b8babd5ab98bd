#include "ui/costs/score_timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace qkv::ui {

namespace {

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The q-quantile of ascending `sorted` (not empty), linear between ranks.
double quantileOfSorted(const std::vector<double>& sorted, double q)
{
    const double rank = q * static_cast<double>(sorted.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(rank));
    const std::size_t above = std::min(below + 1, sorted.size() - 1);
    return sorted[below] + (rank - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

double median(std::vector<double> values)
{
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    return quantileOfSorted(values, 0.5);
}

}  // namespace

std::pair<double, double> quartiles(std::vector<double> values)
{
    if (values.empty()) return {0.0, 0.0};
    std::sort(values.begin(), values.end());
    return {quantileOfSorted(values, 0.25), quantileOfSorted(values, 0.75)};
}

ScoreTiming timeScoresBothWays(const MatrixF& xq, const MatrixF& xkv, const MatrixF& wq,
                               const MatrixF& wk, int repetitions, double minSampleMilliseconds)
{
    ScoreTiming timing;
    const Index d_model = wq.rows();
    if (repetitions < 1 || d_model == 0 || xq.cols() != d_model || xkv.cols() != d_model ||
        wk.rows() != d_model || wk.cols() != wq.cols() || xq.rows() == 0 || xkv.rows() == 0) {
        return timing;
    }
    timing.n_q = xq.rows();
    timing.n_k = xkv.rows();
    timing.d_model = d_model;
    timing.d_k = wq.cols();

    // Both ways run on one thread (Eigen never starts threads: core/common/parallelism.hpp): on a
    // shared machine a team's spinning threads made small products erratic (measured here under
    // load: 40 ms for either way at d_model 768 instead of 0.2 ms).
    const MatrixF w = wq * wk.transpose();  // W_i, d_model x d_model: the full way's weights
    MatrixF scores(xq.rows(), xkv.rows());   // n_q x n_k
    // Keeps the optimiser from dropping an unused product. This call's own: measurements may run
    // on several threads at once (two views, tests), and a shared sink would be a data race.
    volatile float sink = 0.0f;

    const auto factored = [&] {
        const MatrixF q = xq * wq;   // n_q x d_k
        const MatrixF k = xkv * wk;  // n_k x d_k
        scores.noalias() = q * k.transpose();
        sink = sink + scores(0, 0);
    };
    const auto full = [&] {
        const MatrixF xw = xq * w;  // n_q x d_model
        scores.noalias() = xw * xkv.transpose();
        sink = sink + scores(0, 0);
    };

    // Warm up both, then size a sample so that the slower way lasts minSampleMilliseconds.
    factored();
    full();
    const Clock::time_point probe = Clock::now();
    full();
    const double once = std::max(millisecondsSince(probe), 1e-4);
    const int evaluations = std::clamp(static_cast<int>(minSampleMilliseconds / once) + 1, 1, 100000);

    constexpr int kMaxRounds = 3;
    constexpr double kSteadySpread = 1.2;  // third quartile of the ratios over the first
    std::vector<double> factoredSamples, fullSamples, ratios;
    for (int round = 0; round < kMaxRounds; ++round) {
        for (int r = 0; r < repetitions; ++r) {
            Clock::time_point start = Clock::now();
            for (int e = 0; e < evaluations; ++e) {
                factored();
            }
            factoredSamples.push_back(millisecondsSince(start) / evaluations);
            start = Clock::now();
            for (int e = 0; e < evaluations; ++e) {
                full();
            }
            fullSamples.push_back(millisecondsSince(start) / evaluations);
            ratios.push_back(fullSamples.back() / std::max(factoredSamples.back(), 1e-9));
        }
        const auto [low, high] = quartiles(ratios);
        timing.ratioLow = low;
        timing.ratioHigh = high;
        if (high <= low * kSteadySpread) break;
    }
    timing.factoredMilliseconds = median(factoredSamples);
    timing.fullMilliseconds = median(fullSamples);
    timing.repetitions = static_cast<int>(factoredSamples.size());
    timing.evaluationsPerSample = evaluations;
    return timing;
}

}  // namespace qkv::ui
