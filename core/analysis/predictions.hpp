#pragma once
// What the model predicts at one position, and how switching heads off changes it.
//
// Symbols: V the vocabulary size, z the logits of one position (1 x V), k the tokens shown,
// t the selected token id; (l, i) a head: layer l, head i, both 0-based.
//   probability   p_v = exp(z_v - m) / sum_w exp(z_w - m),  m = max_w z_w
//                 (the softmax in double; subtracting m keeps exp() <= 1, whatever the logits'
//                 magnitude, and leaves the probabilities unchanged)
//   top k         the k largest p_v, most likely first; equal logits: the smaller id first
//   change        p_t(after) - p_t(before), with `after` the logits with some heads switched off
//   ranking       candidates by |change| descending; equal |change|: earlier layer, then lower head
// Logits that are NaN or infinite are refused: a softmax over them has no meaning. How the model
// is run with heads switched off is the caller's business: it passes the logits (or a function
// that computes them) per candidate.

#include <cstdint>
#include <functional>
#include <vector>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"

namespace qkv {

struct TokenProbability {
    std::int32_t id = 0;
    double probability = 0.0;
};

// Logits of one position: a 1 x V row (a row of a row-major n x V logits matrix binds without a copy).
using LogitsRow = Eigen::Ref<const RowVectorF>;

// The k most likely tokens, most likely first. Errors: V = 0, k < 1, k > V, non-finite logits.
Expected<std::vector<TokenProbability>> topPredictions(const LogitsRow& logits, Index k = 5);

// p_t alone. Errors: V = 0, t outside [0, V), non-finite logits.
Expected<double> tokenProbability(const LogitsRow& logits, std::int32_t id);

struct PredictionChange {
    std::int32_t id = 0;   // t
    double before = 0.0;   // p_t with every head as it was
    double after = 0.0;    // p_t with the candidate's heads switched off
    double change = 0.0;   // after - before (negative: the heads were helping t)
};

// Errors: either row invalid (as tokenProbability), rows of different lengths.
Expected<PredictionChange> predictionChange(const LogitsRow& before, const LogitsRow& after, std::int32_t id);

struct HeadCandidate {
    Index layer = 0;  // 0-based
    Index head = 0;   // 0-based
};

struct HeadEffect {
    HeadCandidate candidate;
    PredictionChange change;
};

// Sorts in place: |change.change| descending, then layer, then head ascending.
void sortByPredictionChange(std::vector<HeadEffect>& effects);

// The logits at the selected position with `candidate` switched off (on top of whatever the
// caller keeps switched off already). It may fail (a model that cannot run): its message is
// passed on, naming the candidate.
using LogitsWithoutHead = std::function<Expected<RowVectorF>(const HeadCandidate& candidate)>;

// Every candidate's effect on p_t, ranked. Errors: invalid `before` or t, a failing callback,
// invalid logits from it.
Expected<std::vector<HeadEffect>> rankHeadsByPredictionChange(const LogitsRow& before, std::int32_t id,
                                                              const std::vector<HeadCandidate>& candidates,
                                                              const LogitsWithoutHead& logitsWithout);

// The same with the logits precomputed: after[c] belongs to candidates[c].
// Errors: as above, and a different number of rows and candidates.
Expected<std::vector<HeadEffect>> rankHeadsByPredictionChange(const LogitsRow& before, std::int32_t id,
                                                              const std::vector<HeadCandidate>& candidates,
                                                              const std::vector<RowVectorF>& after);

}  // namespace qkv
