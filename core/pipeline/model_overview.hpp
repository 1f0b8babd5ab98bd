#pragma once
// The whole model at a glance on the typed sentences (docs/architecture.md, "Model"): every attention layer
// of one run, per-head statistics as layers x heads grids, the value-weighted norms, the
// attention rollout up to a chosen layer, and the readout's most likely tokens, with and without
// the heads the user switched off. What the app's Model and Predictions tabs draw.
//
// Symbols: L attention layers in model order (pretrained_model.hpp), h heads per layer, n tokens.
// Per head i of layer l, from its attention map A (rows: queries q, columns: keys j), averaged
// over the queries that have a distribution (head_statistics.hpp has the per-row definitions):
//   entropy             mean_q H_q / ln v_q                 (0: one key, 1: uniform)
//   mean distance       mean_q sum_j a_qj |j - q|            (in tokens)
//   first-token weight  mean_q a_q0                          ([CLS], <s>, <|endoftext|>: the "sink")
//   own-position weight mean_q a_qq                          (self-attention only; NaN in cross)
//   previous-token      mean_t a_{t,t-1}                      (self-attention only; head_roles.hpp)
//   induction           mean_t a_{t,s+1}, s the token's last earlier position (self-attention
//                       with a repeated token; head_roles.hpp)
//   duplicate-token     mean_t sum_{s<t, same token} a_{t,s} (self-attention with a repeated token)
//   first-token role    mean_t a_{t,0} over every query (self-attention only): the first-token
//                       weight of a self-attention layer (whose every row has a distribution),
//                       NaN in cross-attention, where the keys' first token is the source's
// A head that looks at the previous token has mean distance ~1 and low entropy; one that rests on
// the separator or first token has first-token weight near 1; one that looks everywhere has
// entropy near 1.
//
// Switching heads off (Michel et al. 2019): the run with them off re-runs only the blocks from
// the first switched-off head's layer (model_run.hpp); the run with every head on (the baseline)
// is kept beside it, so the predictions can be compared and a head ranking needs no re-run of the
// baseline.

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/analysis/head_statistics.hpp"
#include "core/analysis/predictions.hpp"
#include "core/analysis/value_norms.hpp"
#include "core/common/expected.hpp"
#include "core/common/matrix.hpp"
#include "core/pipeline/model_predictions.hpp"
#include "core/pipeline/pretrained_run.hpp"
#include "core/pretrained/model_run.hpp"
#include "core/pretrained/pretrained_model.hpp"

namespace qkv {

// L x h grids, rows = layers in model order, columns = heads; NaN where a statistic does not
// exist (own position in cross-attention) or a layer has no row with a distribution.
struct HeadStatisticGrids {
    MatrixD entropy;            // normalised entropy, [0, 1]
    MatrixD meanDistance;       // tokens
    MatrixD firstTokenWeight;   // [0, 1]
    MatrixD ownPositionWeight;  // [0, 1], NaN for cross-attention layers
    MatrixD previousToken;      // [0, 1], NaN for cross-attention layers
    MatrixD induction;          // [0, 1], NaN for cross-attention layers and without a repeated token
    MatrixD duplicateToken;     // [0, 1], NaN for cross-attention layers and without a repeated token
    MatrixD firstTokenRole;     // [0, 1], NaN for cross-attention layers
};

struct ModelOverviewRequest {
    std::string source;  // the typed sentences; which one feeds what: modelSentences()
    std::string target;
    std::set<ModelHead> ablatedHeads;  // model order, heads from 0
    bool valueNorms = false;           // also compute every layer's ValueNorms (~2 n d_model^2 per layer)
    // An earlier overview of the same model: its baseline run is reused when the tokens are the
    // same, and its run when the switched-off heads are the same too (nothing recomputed).
    std::shared_ptr<const struct ModelOverview> previous;
};

struct ModelOverview {
    std::shared_ptr<const PretrainedModel> model;
    ModelSentences sentences;
    std::shared_ptr<const ModelRun> baseline;  // every head on
    std::shared_ptr<const ModelRun> run;       // with ablatedHeads off (== baseline when none)
    HeadStatisticGrids statistics;             // of run
    // Every head's per-row statistics of run (layers, then heads): a causal model typed on takes
    // the rows of the positions both runs share from here.
    std::vector<std::vector<HeadStatistics>> headRows;
    std::vector<ValueNorms> valueNorms;        // of run, L entries, or empty when not asked
    // The readout's top 5 at predictionPositions() (model_export.hpp); empty without a readout.
    std::vector<PositionPredictions> baselinePredictions;
    std::vector<PositionPredictions> predictions;  // with ablatedHeads off

    Index layerCount() const { return run ? static_cast<Index>(run->layers.size()) : 0; }
    const LayerRun& layer(Index modelIndex) const { return run->layer(modelIndex); }
    const std::set<ModelHead>& ablatedHeads() const { return run->ablatedHeads; }
    bool isAblated(const ModelHead& head) const { return run->ablatedHeads.count(head) > 0; }
};

// Runs the model on the request's sentences (reusing `previous` where it can) and computes the
// grids. Errors: the sentences (modelSentences), heads that do not exist, the run's own errors.
Expected<ModelOverview> computeModelOverview(const std::shared_ptr<const PretrainedModel>& model,
                                             const ModelOverviewRequest& request);
// The same on sentences already cut by the model's tokenizer (request.source and .target unread).
Expected<ModelOverview> computeModelOverview(const std::shared_ptr<const PretrainedModel>& model, ModelSentences sentences,
                                             const ModelOverviewRequest& request);

// The grids of a run's layers (exposed for tests). `layerTokenIds`: each layer's query token ids
// (layerQueryTokens), for the induction score; without them its grid is NaN.
HeadStatisticGrids headStatisticGrids(const ModelRun& run, const std::vector<std::vector<std::int32_t>>& layerTokenIds = {});
// The same, keeping every head's per-row statistics in `rows` (layers, then heads); with
// `earlier` (an earlier run's rows), the rows before run.firstRecomputedPosition are taken from it.
HeadStatisticGrids headStatisticGrids(const ModelRun& run, const std::vector<std::vector<std::int32_t>>& layerTokenIds,
                                      const std::vector<std::vector<HeadStatistics>>* earlier,
                                      std::vector<std::vector<HeadStatistics>>& rows);

// The layers attention rollout follows: the self-attention layers of the stack that reads the
// typed sentence (an encoder-decoder's encoder, else the one stack), model order indices.
std::vector<Index> rolloutLayers(const PretrainedModel& model, const ModelRun& run);
// The rollout through rolloutLayers()[0..stop] (attention_rollout.hpp), n x n: rows the positions
// after that layer, columns the input tokens. Errors: no such layers, stop outside them.
Expected<MatrixD> modelRollout(const PretrainedModel& model, const ModelRun& run, Index stop);

// Called after each candidate: `done` of `total`; returning false stops the ranking (the result
// is then an error "stopped").
using RankingProgress = std::function<bool(Index done, Index total)>;

// Every head still on, ranked by how switching it off (on top of the overview's switched-off
// heads) changes the probability of token `id` at readout position `position` (predictions.hpp).
// Each candidate re-runs only the blocks from its layer on. Errors: no readout, a position
// outside the readout's sequence, an id outside the vocabulary, a run that fails, stopped.
Expected<std::vector<HeadEffect>> rankHeadsAtPosition(const ModelOverview& overview, Index position,
                                                      std::int32_t id, const RankingProgress& progress = {});

}  // namespace qkv
