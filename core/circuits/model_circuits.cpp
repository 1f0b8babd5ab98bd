#include "core/circuits/circuit_parts.hpp"
#include "core/circuits/head_circuits.hpp"
#include "core/circuits/vocabulary_products.hpp"

namespace qkv {

namespace {

// Every self-attention layer's heads, counted before the directions are stacked.
Index selfAttentionHeads(const PretrainedModel& model)
{
    Index heads = 0;
    for (Index l = 0; l < model.layerCount(); ++l)
        if (circuits::selfAttentionLayer(model, l))
            heads += model.layersInModelOrder[static_cast<std::size_t>(l)].headCount;
    return heads;
}

}  // namespace

Expected<std::vector<HeadCircuits>> modelCircuits(const PretrainedModel& model, const CircuitBasis& basis,
                                                  const std::vector<std::int32_t>& tokenIds, Index k)
{
    if (std::string reason = noCircuitsReason(model); !reason.empty()) return Error{std::move(reason)};
    if (std::string problem = circuits::tokenRequestProblem(model, tokenIds, k); !problem.empty())
        return Error{std::move(problem)};
    if (std::string problem = circuits::basisProblem(model, basis); !problem.empty()) return Error{std::move(problem)};
    const MatrixF& embedding = circuits::tokenTable(model);  // W_E, V x d
    const Index d = embedding.cols();
    const auto m = static_cast<Index>(tokenIds.size());
    MatrixF embedded(m, d);  // m x d: the tokens' rows of W_E
    for (Index a = 0; a < m; ++a) embedded.row(a) = embedding.row(tokenIds[static_cast<std::size_t>(a)]);
    // Every head's directions side by side (head-major, then tokens): d x (heads m) each, so the
    // vocabulary is read once per side for all heads (two large products).
    const Index heads = selfAttentionHeads(model);
    MatrixF queryKey(d, heads * m), outputs(d, heads * m);
    std::vector<HeadCircuits> all;
    all.reserve(static_cast<std::size_t>(heads));
    for (Index l = 0; l < model.layerCount(); ++l) {
        if (!circuits::selfAttentionLayer(model, l)) continue;
        Expected<std::shared_ptr<const AttentionWeights>> weights = circuits::layerWeights(model, l);
        if (!weights) return Error{weights.error()};
        Expected<HeadGrouping> grouping = circuits::checkedHead(model, **weights, {l, 0});
        if (!grouping) return Error{grouping.error()};
        const MatrixF basisValues = circuits::basisTimesValues(basis, **weights);  // d x (g d_v)
        std::vector<HeadSpectrum> spectra = circuits::layerSpectra(**weights, *grouping, basisValues);
        for (Index i = 0; i < grouping->headCount; ++i) {
            const Index column = static_cast<Index>(all.size()) * m;
            circuits::circuitDirections(**weights, *grouping, i, CircuitSide::QK, embedded,
                                        queryKey.middleCols(column, m));
            circuits::circuitDirections(**weights, *grouping, i, CircuitSide::OV, embedded,
                                        outputs.middleCols(column, m));
            all.push_back({CircuitHead{l, i},
                           grouping->keyValueHeadOf(i),
                           std::move(spectra[static_cast<std::size_t>(i)]),
                           {},
                           {}});
        }
    }
    // Tied (W_U = W_E^T), both sides read W_E: one pass over it for both.
    std::vector<std::vector<circuits::ScoredId>> keys, promoted;
    if (circuits::readoutTied(model)) {
        MatrixF both(d, 2 * heads * m);  // d x (2 heads m): [query-key | output] directions
        both << queryKey, outputs;
        keys = circuits::topRowsPerColumn(embedding, both, k);
        promoted.assign(std::make_move_iterator(keys.begin() + heads * m), std::make_move_iterator(keys.end()));
        keys.resize(static_cast<std::size_t>(heads * m));
    } else {
        keys = circuits::topRowsPerColumn(embedding, queryKey, k);
        promoted = circuits::topRowsPerColumn(circuits::readoutTable(model), outputs, k);
    }
    const std::vector<std::string> pieces = circuits::tokenPieces(model);
    for (std::size_t h = 0; h < all.size(); ++h) {
        all[h].qk = circuits::tokenCircuitsFrom(model, pieces, tokenIds, keys, h * tokenIds.size());
        all[h].ov = circuits::tokenCircuitsFrom(model, pieces, tokenIds, promoted, h * tokenIds.size());
    }
    return all;
}

}  // namespace qkv
