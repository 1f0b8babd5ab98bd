#include "core/circuits/circuit_parts.hpp"
#include "core/circuits/head_circuits.hpp"
#include "core/circuits/vocabulary_products.hpp"

#include <cmath>

namespace qkv {

namespace circuits {

void circuitDirections(const AttentionWeights& weights, const HeadGrouping& grouping, Index head, CircuitSide side,
                       const MatrixF& embedded, Eigen::Ref<MatrixF> out)
{
    if (side == CircuitSide::QK) {
        const MatrixF queries = embedded * weights.queryHead(head, grouping);  // m x d_k
        const float scale = 1.0f / std::sqrt(static_cast<float>(grouping.d_k));
        out.noalias() = weights.keyHead(head, grouping) * queries.transpose();  // d x m
        out *= scale;
    } else {
        const MatrixF values = embedded * weights.valueHead(head, grouping);        // m x d_v
        out.noalias() = (values * weights.outputHead(head, grouping)).transpose();  // d x m
    }
}

std::string tokenRequestProblem(const PretrainedModel& model, const std::vector<std::int32_t>& tokenIds, Index k)
{
    const Index V = tokenTable(model).rows();
    if (k < 1 || k > V)
        return "K must be between 1 and the vocabulary's " + std::to_string(V) + " tokens (got " + std::to_string(k) +
               ")";
    for (const std::int32_t id : tokenIds)
        if (id < 0 || id >= V)
            return "token id " + std::to_string(id) + " is outside the vocabulary (0 to " + std::to_string(V - 1) + ")";
    return {};
}

std::vector<TokenCircuit> tokenCircuitsFrom(const PretrainedModel& model, const std::vector<std::string>& pieces,
                                            const std::vector<std::int32_t>& tokenIds,
                                            const std::vector<std::vector<ScoredId>>& top, std::size_t first)
{
    std::vector<TokenCircuit> all;
    all.reserve(tokenIds.size());
    for (std::size_t a = 0; a < tokenIds.size(); ++a) {
        TokenCircuit circuit{tokenIds[a], tokenText(model, pieces, tokenIds[a]), {}};
        for (const ScoredId& entry : top[first + a])
            circuit.top.push_back({entry.id, tokenText(model, pieces, entry.id), static_cast<double>(entry.value)});
        all.push_back(std::move(circuit));
    }
    return all;
}

}  // namespace circuits

Expected<std::vector<TokenCircuit>> tokenCircuits(const PretrainedModel& model, const CircuitHead& head,
                                                  CircuitSide side, const std::vector<std::int32_t>& tokenIds, Index k)
{
    if (std::string reason = noCircuitsReason(model); !reason.empty()) return Error{std::move(reason)};
    if (std::string problem = circuits::tokenRequestProblem(model, tokenIds, k); !problem.empty())
        return Error{std::move(problem)};
    Expected<std::shared_ptr<const AttentionWeights>> weights = circuits::layerWeights(model, head.layer);
    if (!weights) return Error{weights.error()};
    Expected<HeadGrouping> grouping = circuits::checkedHead(model, **weights, head);
    if (!grouping) return Error{grouping.error()};
    const MatrixF& embedding = circuits::tokenTable(model);  // W_E, V x d
    const auto m = static_cast<Index>(tokenIds.size());
    MatrixF embedded(m, embedding.cols());  // m x d
    for (Index a = 0; a < m; ++a) embedded.row(a) = embedding.row(tokenIds[static_cast<std::size_t>(a)]);
    MatrixF directions(embedding.cols(), m);  // d x m
    circuits::circuitDirections(**weights, *grouping, head.head, side, embedded, directions);
    // QK: every key token b's row of W_E; OV: every output token t's column of W_U (a row of W_U^T).
    const MatrixF& table = side == CircuitSide::QK ? embedding : circuits::readoutTable(model);
    const auto top = circuits::topRowsPerColumn(table, directions, k);
    return circuits::tokenCircuitsFrom(model, circuits::tokenPieces(model), tokenIds, top, 0);
}

}  // namespace qkv
