#pragma once
// What a head's two matrices mean in the vocabulary (Elhage et al. 2021, "A Mathematical
// Framework for Transformer Circuits", sections on the QK and OV circuits): the direct path from
// the token embeddings through one head to the readout, with no positions, biases or norms.
//
// Symbols (row vectors, y = x W, docs/architecture.md "Numerical conventions"): V the vocabulary,
// d_model, h query heads and g key/value heads of the layer, d_k the width of a head;
//   W_E   the token embedding table as stored, V x d_model
//   W_U   the readout, d_model x V: lm_head's weight transposed, or W_E^T when tied
//   W_Q^h its columns of W^Q (d_model x d_k); W_K^h, W_V^h the columns of W^K and W^V of its
//         key/value head j = floor(h_index g / h) (grouped-query models share one among h / g)
//   W_O^h its rows of W^O, d_k x d_model
// Per head:
//   QK score of query token a and key token b   (W_E[a] W_Q^h) . (W_E[b] W_K^h) / sqrt(d_k)
//   OV logit of source token s for output t     W_E[s] W_V^h W_O^h W_U[:, t]
//   copying score   sum Re(lambda) / sum |lambda| over the eigenvalues lambda of the d_k x d_k
//                   matrix M^h = W_O^h (W_U W_E) W_V^h, which has the non-zero eigenvalues of
//                   the V x V full OV circuit W_E W_V^h W_O^h W_U; +1: the head copies what it
//                   reads, -1: it suppresses it.
// W_U W_E (d_model x d_model) is computed once per model (CircuitBasis); the V x V matrix, and a
// V x d_k product per head, never. Threads: the large products and a layer's heads run on
// threadsFor(work) threads (computeThreads(): the app's one, the export's every core).

#include <atomic>
#include <functional>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/pretrained/pretrained_model.hpp"

namespace qkv {

// One head of a model: its self-attention layer in model order and the head, both from 0.
struct CircuitHead {
    Index layer = 0;
    Index head = 0;
    bool operator==(const CircuitHead&) const = default;
};

// Why `model` has no circuits (no readout: BERT's encoder; an encoder-decoder; a masked LM's
// readout that is not the direct path), said for people; empty when it has them.
std::string noCircuitsReason(const PretrainedModel& model);

// W_U W_E, d_model x d_model in float (the Gram matrix W_E^T W_E when tied), once
// per model. `stop` set from another thread ends it with an error. Errors: noCircuitsReason.
struct CircuitBasis {
    MatrixF readoutTimesEmbedding;  // W_U W_E, d_model x d_model
};
Expected<CircuitBasis> circuitBasis(const PretrainedModel& model, const std::atomic<bool>* stop = nullptr);

struct HeadSpectrum {
    std::vector<std::complex<double>> eigenvalues;  // of M^h, d_k of them, |lambda| descending
    double copyingScore = 0.0;                      // NaN when every eigenvalue is 0
};
// Errors: a head or layer that does not exist, a cross-attention layer.
Expected<HeadSpectrum> headSpectrum(const PretrainedModel& model, const CircuitBasis& basis, const CircuitHead& head);

// Every self-attention layer's copying scores, L x h (rows: layers in model order); NaN for
// cross-attention layers and heads a layer lacks. `progress(done, total)` after each layer,
// returning false stops (an error "stopped").
Expected<MatrixD> copyingScoreGrid(const PretrainedModel& model, const CircuitBasis& basis,
                                   const std::function<bool(Index, Index)>& progress = {});

struct VocabularyEntry {
    std::int32_t id = 0;
    std::string token;   // as text (SubwordTokenizer::displayPiece)
    double value = 0.0;  // a QK score or an OV logit
};
struct TokenCircuit {
    std::int32_t id = 0;
    std::string token;
    std::vector<VocabularyEntry> top;  // K of them over the whole vocabulary, value descending, ties: smaller id
};
enum class CircuitSide { QK, OV };
// For each of `tokenIds` (as given; callers pass the prompt's distinct tokens in order of first
// appearance), the K keys it attends to most by QK, or the K tokens it promotes most by OV.
// Errors: K < 1 or K > V, an id outside the vocabulary, the head's errors, noCircuitsReason.
Expected<std::vector<TokenCircuit>> tokenCircuits(const PretrainedModel& model, const CircuitHead& head,
                                                  CircuitSide side, const std::vector<std::int32_t>& tokenIds, Index k);

// The prompt's distinct ids in order of first appearance (a BOS token included).
std::vector<std::int32_t> distinctTokenIds(const std::vector<std::int32_t>& promptIds);

// Every head of every self-attention layer at once, for the export (`--circuits K`): the QK and
// OV top-K of `tokenIds` for all heads as two large products (W_E against every head's query
// directions; W_U against every head's output directions), and each head's spectrum.
struct HeadCircuits {
    CircuitHead head;
    Index keyValueHead = 0;  // from 0
    HeadSpectrum spectrum;
    std::vector<TokenCircuit> qk;
    std::vector<TokenCircuit> ov;
};
Expected<std::vector<HeadCircuits>> modelCircuits(const PretrainedModel& model, const CircuitBasis& basis,
                                                  const std::vector<std::int32_t>& tokenIds, Index k);

}  // namespace qkv
