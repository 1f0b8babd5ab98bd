#pragma once
// Activation patching between a clean prompt P and a corrupted prompt P' of as many tokens
// (Meng et al. 2022; Heimersheim & Nanda 2024), for a causal language model.
//
// Symbols: L layers (model order), h heads of a layer, n tokens, A the answer token, B the wrong
// token, t the readout's input at the last position (after the final norm), E the readout matrix
// (V x d_model), b its bias.
//   logit difference   LD(run) = logit_A - logit_B at position n - 1, with logit_v = t . E_v + b_v
//                      summed in double (then the model's final soft cap, when it has one)
//   recovered fraction r = (LD(patched) - LD(P')) / (LD(P) - LD(P'))   (1: the whole clean answer)
//   heads grid         r[l][i]: P' with head i of layer l's z (its block of Concat, before W^O) at
//                      every position taken from P's run
//   residual grid      r[l][p]: P' with the residual stream entering layer l's block at position
//                      p taken from P's run
// Each patched run reuses the corrupted run (RunOptions::previous): the layers below the patch,
// and the positions before the first row the patch changes, with the bits of a full run. A patch
// whose values equal the corrupted run's bit for bit is that run: r = 0 without running it.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/pretrained/model_run.hpp"
#include "core/pretrained/pretrained_model.hpp"

namespace qkv {

// The clean and the corrupted run, whole, as the grids read them.
struct PatchingRuns {
    std::shared_ptr<const ModelRun> clean;
    std::shared_ptr<const ModelRun> corrupt;
};

// t at the last position of each patched run (what the metric reads), so that changing A or B
// recomputes nothing but the metric.
struct PatchingReadouts {
    RowVectorF clean;                               // 1 x d_model
    RowVectorF corrupt;                             // 1 x d_model
    std::vector<std::vector<RowVectorF>> heads;     // [layer][head]; empty rows: not computed
    std::vector<std::vector<RowVectorF>> residual;  // [layer][position]; empty: equals corrupt
    Index layersDone = 0;                           // rows of the grids filled (both grids)
};

struct PatchingGrids {
    std::int32_t answer = 0;
    std::int32_t wrong = 0;
    double cleanDifference = 0.0;               // LD(P)
    double corruptDifference = 0.0;             // LD(P')
    std::vector<std::vector<double>> heads;     // L x h, recovered fractions
    std::vector<std::vector<double>> residual;  // L x n
};

// Called after each patched run with the patches done and their total; false stops the work
// (the readouts then hold the layers done so far).
using PatchingProgress = std::function<bool(Index done, Index total)>;
// Called after each layer's patches (both grids' row of that layer) with the readouts so far, on
// the thread that patches: what a window draws while the later layers are computed.
using PatchingLayerDone = std::function<void(const PatchingReadouts& soFar)>;

// Refuses, with a message, what patching cannot read: a model that is not a causal language
// model (encoder-only, encoder-decoder) or has no readout.
Status checkPatchingModel(const PretrainedModel& model);

// Runs P and P' (refused, naming both counts, when they cut into different numbers of tokens).
Expected<PatchingRuns> patchingRuns(const PretrainedModel& model, const std::vector<std::int32_t>& clean,
                                    const std::vector<std::int32_t>& corrupt);

// Every patch of both grids, layer by layer (each layer's heads, then its positions).
Expected<PatchingReadouts> patchingReadouts(const PretrainedModel& model, const PatchingRuns& runs,
                                            const PatchingProgress& progress = {},
                                            const PatchingLayerDone& layerDone = {});

// LD of one readout input row (above).
double logitDifference(const PretrainedModel& model, const RowVectorF& t, std::int32_t answer, std::int32_t wrong);

// The grids for A and B. Refused: ids outside the vocabulary, A = B, LD(P) = LD(P').
Expected<PatchingGrids> patchingGrids(const PretrainedModel& model, const PatchingReadouts& readouts,
                                      std::int32_t answer, std::int32_t wrong);

// The one token of the vocabulary that `text` cuts into with the model's tokenizer (special
// tokens it adds, such as a BOS, left out). Refused, naming how it cuts, otherwise.
Expected<std::int32_t> singleTokenId(const PretrainedModel& model, const std::string& text, const std::string& what);

}  // namespace qkv
