#pragma once
// What the circuits' files share (head_circuits.hpp): the model's tables, a layer's weights
// wherever they live, a head checked against its layer, and one head's spectrum.
//
// Symbols: V, d = d_model, h query heads and g key/value heads of a layer, d_v a head's width.

#include <memory>
#include <string>
#include <vector>

#include "core/circuits/head_circuits.hpp"
#include "core/circuits/vocabulary_products.hpp"

namespace qkv::circuits {

// W_E, V x d_model: the token table of the stack that reads the prompt.
const MatrixF& tokenTable(const PretrainedModel& model);
// W_U^T, V x d_model: lm_head's weight as stored, or W_E itself when tied.
const MatrixF& readoutTable(const PretrainedModel& model);
bool readoutTied(const PretrainedModel& model);

// The attention weights of the layer at `modelIndex`: the model's own when resident, else read now.
Expected<std::shared_ptr<const AttentionWeights>> layerWeights(const PretrainedModel& model, Index modelIndex);

// `head` checked (its layer exists and is self-attention, the head exists), with its layer's
// grouping. Errors say which.
Expected<HeadGrouping> checkedHead(const PretrainedModel& model, const AttentionWeights& weights,
                                   const CircuitHead& head);
// Whether the layer at `modelIndex` is self-attention (queries and keys from one sequence).
bool selfAttentionLayer(const PretrainedModel& model, Index modelIndex);

// Empty when `basis` is d_model x d_model as this model's is, else what is wrong (a basis of
// another model, or none).
std::string basisProblem(const PretrainedModel& model, const CircuitBasis& basis);
// (W_U W_E) W^V for all g key/value heads at once, d x (g d_v) (float, through the basis).
MatrixF basisTimesValues(const CircuitBasis& basis, const AttentionWeights& weights);
// The spectrum of M^h = W_O^h (W_U W_E) W_V^h from basisTimesValues' columns of h's key/value head.
HeadSpectrum headSpectrumFrom(const AttentionWeights& weights, const HeadGrouping& grouping, Index head,
                              const MatrixF& basisValues);
// Every head's spectrum of one layer (basisTimesValues' columns), h of them, the heads on
// threadsFor(their work) threads.
std::vector<HeadSpectrum> layerSpectra(const AttentionWeights& weights, const HeadGrouping& grouping,
                                       const MatrixF& basisValues);
// Eigenvalues of a square matrix sorted by |lambda| descending, and their copying score.
HeadSpectrum spectrumOf(const MatrixD& matrix);

// Token id -> the vocabulary's entry (tokenPieceTable; empty without a tokenizer, and for a
// tokenizer.json, which tokenText asks id by id), and one id's text as the chips show it (""
// without a tokenizer or for an id it lacks).
std::vector<std::string> tokenPieces(const PretrainedModel& model);
std::string tokenText(const PretrainedModel& model, const std::vector<std::string>& pieces, std::int32_t id);

// The directions a head reads the vocabulary along, one column per token of `embedded` (m x d,
// the tokens' rows of W_E), into `out` (d x m):
//   QK  u_a = W_K^h (W_E[a] W_Q^h)^T / sqrt(d_k): key token b scores W_E[b] . u_a
//   OV  o_s = (W_E[s] W_V^h W_O^h)^T:             output token t gets the logit W_U[:, t] . o_s
void circuitDirections(const AttentionWeights& weights, const HeadGrouping& grouping, Index head, CircuitSide side,
                       const MatrixF& embedded, Eigen::Ref<MatrixF> out);

// Checks K and the ids against the vocabulary; empty when they fit.
std::string tokenRequestProblem(const PretrainedModel& model, const std::vector<std::int32_t>& tokenIds, Index k);

// Each id's top list as TokenCircuits, with their texts: ids[a]'s list is top[first + a].
std::vector<TokenCircuit> tokenCircuitsFrom(const PretrainedModel& model, const std::vector<std::string>& pieces,
                                            const std::vector<std::int32_t>& tokenIds,
                                            const std::vector<std::vector<ScoredId>>& top, std::size_t first);

}  // namespace qkv::circuits
