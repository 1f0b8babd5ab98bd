#include "core/training/head_score_sums.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/training/task_scores.hpp"

namespace qkv {

void addAlignment(const MatrixF& attention, const std::vector<std::int32_t>& gold, HeadScoreSums& sums)
{
    const Index rows = std::min<Index>(attention.rows(), static_cast<Index>(gold.size()));
    for (Index t = 0; t < rows; ++t) {
        const std::int32_t key = gold[static_cast<std::size_t>(t)];
        if (key < 0 || key >= attention.cols()) continue;
        Index largest = 0;
        attention.row(t).maxCoeff(&largest);  // the first of equal maxima
        sums.alignmentPositions += 1.0;
        sums.alignmentHits += largest == key ? 1.0 : 0.0;
    }
}

void addInduction(const MatrixF& attention, Index period, HeadScoreSums& sums)
{
    if (period < 1) return;
    const Index rows = std::min(attention.rows(), attention.cols());
    for (Index t = period + 1; t < rows && t <= 2 * period; ++t) {
        sums.inductionWeight += attention(t, t - period + 1);
        sums.inductionPositions += 1.0;
    }
}

void addPreviousToken(const MatrixF& attention, HeadScoreSums& sums)
{
    const Index rows = std::min(attention.rows(), attention.cols() + 1);
    for (Index t = 1; t < rows; ++t) {
        sums.previousWeight += attention(t, t - 1);
        sums.previousPositions += 1.0;
    }
}

Index effectiveRank(const std::vector<double>& singularValues, double energy)
{
    std::vector<double> squares;
    double total = 0.0;
    for (double sigma : singularValues) {
        if (!std::isfinite(sigma)) return 0;
        squares.push_back(sigma * sigma);
        total += sigma * sigma;
    }
    if (!(total > 0.0)) return 0;
    std::sort(squares.begin(), squares.end(), std::greater<>());
    double sum = 0.0;
    for (std::size_t i = 0; i < squares.size(); ++i) {
        sum += squares[i];
        if (sum >= energy * total) return static_cast<Index>(i + 1);
    }
    return static_cast<Index>(squares.size());  // rounding left the sum a hair short of energy * total
}

}  // namespace qkv
