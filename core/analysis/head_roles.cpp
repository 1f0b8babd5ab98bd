#include "core/analysis/head_roles.hpp"

#include <cmath>
#include <algorithm>
#include <limits>
#include <unordered_map>

namespace qkv {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

double previousTokenScore(const MatrixF& attention)
{
    const Index n = std::min(attention.rows(), attention.cols());
    if (n < 2) return kNaN;
    double sum = 0.0;
    for (Index t = 1; t < n; ++t) sum += static_cast<double>(attention(t, t - 1));
    return sum / static_cast<double>(n - 1);
}

double inductionScore(const MatrixF& attention, const std::vector<std::int32_t>& tokenIds)
{
    const auto n = static_cast<Index>(tokenIds.size());
    if (attention.rows() != n || attention.cols() != n) return kNaN;
    std::unordered_map<std::int32_t, Index> lastSeen;  // id -> its latest position so far
    double sum = 0.0;
    Index counted = 0;
    for (Index t = 0; t < n; ++t) {
        const std::int32_t id = tokenIds[static_cast<std::size_t>(t)];
        const auto earlier = lastSeen.find(id);
        // s + 1 < t: when the token repeats at once (s = t - 1) the "next" token is itself,
        // which says nothing an own-position weight does not.
        if (earlier != lastSeen.end() && earlier->second + 1 < t) {
            sum += static_cast<double>(attention(t, earlier->second + 1));
            ++counted;
        }
        lastSeen[id] = t;
    }
    return counted > 0 ? sum / static_cast<double>(counted) : kNaN;
}

double duplicateTokenScore(const MatrixF& attention, const std::vector<std::int32_t>& tokenIds)
{
    const auto n = static_cast<Index>(tokenIds.size());
    if (attention.rows() != n || attention.cols() != n) return kNaN;
    std::unordered_map<std::int32_t, std::vector<Index>> seen;  // id -> its positions so far
    double sum = 0.0;
    Index counted = 0;
    for (Index t = 0; t < n; ++t) {
        std::vector<Index>& earlier = seen[tokenIds[static_cast<std::size_t>(t)]];
        if (!earlier.empty()) {
            for (const Index s : earlier) sum += static_cast<double>(attention(t, s));
            ++counted;
        }
        earlier.push_back(t);
    }
    return counted > 0 ? sum / static_cast<double>(counted) : kNaN;
}

double firstTokenScore(const MatrixF& attention)
{
    if (attention.rows() == 0 || attention.cols() == 0) return kNaN;
    double sum = 0.0;
    for (Index t = 0; t < attention.rows(); ++t) sum += static_cast<double>(attention(t, 0));
    return sum / static_cast<double>(attention.rows());
}

HeadRole headRole(double previousToken, double induction)
{
    const double p = std::isnan(previousToken) ? 0.0 : previousToken;
    const double i = std::isnan(induction) ? 0.0 : induction;
    if (std::max(p, i) < kRoleThreshold) return HeadRole::None;
    return i >= p ? HeadRole::Induction : HeadRole::PreviousToken;
}

}  // namespace qkv
