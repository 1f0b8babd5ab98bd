#include "core/pipeline/model_overview.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include "core/analysis/attention_rollout.hpp"
#include "core/analysis/head_roles.hpp"
#include "core/analysis/head_statistics.hpp"

namespace qkv {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool sameTokens(const ModelTokens& a, const ModelTokens& b) { return a.ids == b.ids && a.decoderIds == b.decoderIds; }

// mean_q a_q0 over the queries that have a distribution (NaN when none has).
double firstTokenWeight(const HeadAttention& head, const HeadStatistics& statistics)
{
    double sum = 0.0;
    Index rows = 0;
    for (Index q = 0; q < head.attention.rows(); ++q) {
        if (!statistics.hasDistribution(q) || head.attention.cols() == 0) continue;
        sum += static_cast<double>(head.attention(q, 0));
        ++rows;
    }
    return rows > 0 ? sum / static_cast<double>(rows) : kNaN;
}

// The run with `ablated` off: the baseline itself when none is, else a run that re-runs the
// blocks from the first switched-off head's layer (the earlier ones are the baseline's). Its
// readout rows: `positions`, or the baseline's when empty.
Expected<std::shared_ptr<const ModelRun>> runWith(const PretrainedModel& model,
                                                  const std::shared_ptr<const ModelRun>& baseline,
                                                  const std::set<ModelHead>& ablated,
                                                  const std::vector<Index>& positions = {})
{
    if (ablated.empty()) return baseline;
    RunOptions options;
    options.ablatedHeads = ablated;
    options.keepScores = baseline->keepScores;
    options.logitRows = positions.empty() ? baseline->logitRows : LogitRows::Chosen;
    options.logitPositions = positions.empty() ? baseline->logitPositions : positions;
    options.previous = baseline;
    Expected<ModelRun> run = runPretrainedModel(model, baseline->tokens, options);
    if (!run) return Error{run.error()};
    return std::make_shared<const ModelRun>(std::move(*run));
}

// earlier: the baseline of an earlier overview, whose tokens the new ones may continue (a causal
// model then computes only the positions after the ones both share, model_run.hpp).
// The run with the same heads off as `earlier`, on the baseline's tokens, taking the positions
// both share from `earlier` (a causal model typed on with heads off).
Expected<std::shared_ptr<const ModelRun>> runTypedOn(const PretrainedModel& model,
                                                     const std::shared_ptr<const ModelRun>& baseline,
                                                     const std::shared_ptr<const ModelRun>& earlier)
{
    RunOptions options;
    options.ablatedHeads = earlier->ablatedHeads;
    options.keepScores = baseline->keepScores;
    options.logitRows = baseline->logitRows;
    options.logitPositions = baseline->logitPositions;
    options.previous = earlier;
    Expected<ModelRun> run = runPretrainedModel(model, baseline->tokens, options);
    if (!run) return Error{run.error()};
    return std::make_shared<const ModelRun>(std::move(*run));
}

Expected<std::shared_ptr<const ModelRun>> baselineRun(const PretrainedModel& model, const ModelSentences& sentences,
                                                      std::shared_ptr<const ModelRun> earlier)
{
    RunOptions options;
    options.previous = std::move(earlier);
    // The overview reads attention, never the scores before the softmax: half the memory.
    options.keepScores = false;
    // The readout only where a prediction is shown (a masked LM: its masks); a readout over the
    // whole vocabulary at every position is a large part of a run.
    options.logitRows = LogitRows::Chosen;
    options.logitPositions = predictionPositions(model, sentences);
    if (options.logitPositions.empty()) options.logitRows = LogitRows::None;
    Expected<ModelRun> run = runPretrainedModel(model, sentences.tokens, options);
    if (!run) return Error{run.error()};
    return std::make_shared<const ModelRun>(std::move(*run));
}

Expected<std::vector<ValueNorms>> layerValueNorms(const std::shared_ptr<const PretrainedModel>& model,
                                                  const ModelRun& run)
{
    std::vector<ValueNorms> all;
    all.reserve(run.layers.size());
    for (const auto& layer : run.layers) {
        const Expected<std::shared_ptr<const AttentionWeights>> weights = sublayerAttention(model, layer->modelIndex);
        if (!weights) return Error{weights.error()};
        Expected<ValueNorms> norms = valueWeightedNorms(layer->attention, **weights);
        if (!norms) return Error{layer->layer.name + ": " + norms.error()};
        all.push_back(std::move(*norms));
    }
    return all;
}

}  // namespace

HeadStatisticGrids headStatisticGrids(const ModelRun& run, const std::vector<std::vector<std::int32_t>>& layerTokenIds)
{
    std::vector<std::vector<HeadStatistics>> rows;
    return headStatisticGrids(run, layerTokenIds, nullptr, rows);
}

HeadStatisticGrids headStatisticGrids(const ModelRun& run, const std::vector<std::vector<std::int32_t>>& layerTokenIds,
                                      const std::vector<std::vector<HeadStatistics>>* earlier,
                                      std::vector<std::vector<HeadStatistics>>& rows)
{
    // A causal model typed on: each head's rows before the recomputed position are earlier's.
    const Index kept = earlier ? run.firstRecomputedPosition : 0;
    rows.assign(run.layers.size(), {});
    const auto layers = static_cast<Index>(run.layers.size());
    Index heads = 0;
    for (const auto& layer : run.layers) heads = std::max(heads, layer->attention.headCount());
    HeadStatisticGrids grids;
    for (MatrixD* grid : {&grids.entropy, &grids.meanDistance, &grids.firstTokenWeight, &grids.ownPositionWeight,
                          &grids.previousToken, &grids.induction, &grids.duplicateToken, &grids.firstTokenRole})
        grid->setConstant(layers, heads, kNaN);
    for (Index l = 0; l < layers; ++l) {
        const LayerRun& layer = run.layer(l);
        const bool ownPosition = hasOwnPosition(layer.layer.kind);
        auto& layerRows = rows[static_cast<std::size_t>(l)];
        layerRows.resize(static_cast<std::size_t>(layer.attention.headCount()));
        for (Index i = 0; i < layer.attention.headCount(); ++i) {
            const auto head = static_cast<std::size_t>(i);
            const HeadStatistics* before = kept > 0 && static_cast<std::size_t>(l) < earlier->size() &&
                                                   head < (*earlier)[static_cast<std::size_t>(l)].size()
                                               ? &(*earlier)[static_cast<std::size_t>(l)][head]
                                               : nullptr;
            Expected<HeadStatistics> statistics = headStatistics(layer.attention, i, ownPosition, before, kept);
            if (!statistics) continue;  // non-finite weights: the cells stay NaN ("no value")
            layerRows[head] = std::move(*statistics);
            const HeadStatistics& headRows = layerRows[head];
            const HeadStatisticsSummary& summary = headRows.summary;
            grids.entropy(l, i) = summary.normalizedEntropy;
            grids.meanDistance(l, i) = summary.meanDistance;
            grids.firstTokenWeight(l, i) = firstTokenWeight(layer.attention.heads[head], headRows);
            if (!ownPosition) continue;
            grids.ownPositionWeight(l, i) = summary.selfWeight;
            const MatrixF& attention = layer.attention.heads[static_cast<std::size_t>(i)].attention;
            grids.previousToken(l, i) = previousTokenScore(attention);
            grids.firstTokenRole(l, i) = firstTokenScore(attention);
            if (static_cast<std::size_t>(l) < layerTokenIds.size()) {
                const std::vector<std::int32_t>& ids = layerTokenIds[static_cast<std::size_t>(l)];
                grids.induction(l, i) = inductionScore(attention, ids);
                grids.duplicateToken(l, i) = duplicateTokenScore(attention, ids);
            }
        }
    }
    return grids;
}

Expected<ModelOverview> computeModelOverview(const std::shared_ptr<const PretrainedModel>& model,
                                             const ModelOverviewRequest& request)
{
    if (!model) return Error{"no model to run"};
    Expected<ModelSentences> sentences = modelSentences(*model, request.source, request.target);
    if (!sentences) return Error{sentences.error()};
    return computeModelOverview(model, std::move(*sentences), request);
}

Expected<ModelOverview> computeModelOverview(const std::shared_ptr<const PretrainedModel>& model, ModelSentences sentences,
                                             const ModelOverviewRequest& request)
{
    if (!model) return Error{"no model to run"};
    ModelOverview overview;
    overview.model = model;
    overview.sentences = std::move(sentences);

    const ModelOverview* previous = request.previous.get();
    const bool sameInput = previous && previous->model == model && previous->baseline &&
                           sameTokens(previous->sentences.tokens, overview.sentences.tokens);
    // An earlier overview of the same model on other tokens: a causal model typed on takes the
    // positions both share from it (runs, statistics and predictions alike).
    const ModelOverview* typedOn = previous && previous->model == model && previous->baseline && !sameInput ? previous : nullptr;
    if (sameInput) {
        overview.baseline = previous->baseline;
        overview.baselinePredictions = previous->baselinePredictions;
    } else {
        Expected<std::shared_ptr<const ModelRun>> baseline =
            baselineRun(*model, overview.sentences, typedOn ? typedOn->baseline : nullptr);
        if (!baseline) return Error{baseline.error()};
        overview.baseline = std::move(*baseline);
        Expected<std::vector<PositionPredictions>> top =
            modelPredictions(*model, *overview.baseline, overview.sentences, 5,
                             typedOn ? &typedOn->baselinePredictions : nullptr, overview.baseline->firstRecomputedPosition);
        if (!top) return Error{top.error()};
        overview.baselinePredictions = std::move(*top);
    }

    const bool sameRun = sameInput && previous->run && previous->run->ablatedHeads == request.ablatedHeads;
    if (sameRun) {
        overview.run = previous->run;
        overview.statistics = previous->statistics;
        overview.headRows = previous->headRows;
        overview.predictions = previous->predictions;
        if (!previous->valueNorms.empty()) overview.valueNorms = previous->valueNorms;
    } else {
        // With heads off, typed on: the earlier run with the same heads off lends its positions;
        // else the blocks before the first head off are the baseline's (same tokens).
        const bool typedOnRun = typedOn && typedOn->run && !request.ablatedHeads.empty() &&
                                typedOn->run->ablatedHeads == request.ablatedHeads;
        Expected<std::shared_ptr<const ModelRun>> run =
            typedOnRun ? runTypedOn(*model, overview.baseline, typedOn->run) : runWith(*model, overview.baseline, request.ablatedHeads);
        if (!run) return Error{run.error()};
        overview.run = std::move(*run);
        // The earlier statistics and predictions are of typedOn->run: usable when the new run
        // took its positions from that very run.
        const ModelRun* lender = overview.run == overview.baseline ? typedOn ? typedOn->baseline.get() : nullptr
                                 : typedOnRun                      ? typedOn->run.get()
                                                                   : nullptr;
        const bool lentByRun = lender && typedOn->run.get() == lender && overview.run->firstRecomputedPosition > 0;
        std::vector<std::vector<std::int32_t>> layerIds;
        for (Index l = 0; l < overview.layerCount(); ++l)
            layerIds.push_back(layerQueryTokens(*model, overview.sentences, overview.layer(l)).ids());
        overview.statistics =
            headStatisticGrids(*overview.run, layerIds, lentByRun ? &typedOn->headRows : nullptr, overview.headRows);
        if (overview.run == overview.baseline) {
            overview.predictions = overview.baselinePredictions;
        } else {
            Expected<std::vector<PositionPredictions>> top =
                modelPredictions(*model, *overview.run, overview.sentences, 5, lentByRun ? &typedOn->predictions : nullptr,
                                 overview.run->firstRecomputedPosition);
            if (!top) return Error{top.error()};
            overview.predictions = std::move(*top);
        }
    }
    if (request.valueNorms && overview.valueNorms.empty()) {
        Expected<std::vector<ValueNorms>> norms = layerValueNorms(model, *overview.run);
        if (!norms) return Error{norms.error()};
        overview.valueNorms = std::move(*norms);
    }
    return overview;
}

std::vector<Index> rolloutLayers(const PretrainedModel& model, const ModelRun& run)
{
    std::vector<Index> layers;
    for (const auto& layer : run.layers)
        if (!model.recipe.encoderDecoder() || layer->stack == ModelStack::Encoder) layers.push_back(layer->modelIndex);
    return layers;
}

Expected<MatrixD> modelRollout(const PretrainedModel& model, const ModelRun& run, Index stop)
{
    const std::vector<Index> indices = rolloutLayers(model, run);
    if (indices.empty()) return Error{"the model has no self-attention layer to roll out"};
    if (stop < 0 || stop >= static_cast<Index>(indices.size()))
        return Error{"the rollout stops at one of the " + std::to_string(indices.size()) +
                     " self-attention layers of the stack that reads the sentence, not at " + std::to_string(stop)};
    std::vector<const AttentionResult*> layers;
    for (const Index index : indices) layers.push_back(&run.layer(index).attention);
    return attentionRollout(layers, stop);
}

Expected<std::vector<HeadEffect>> rankHeadsAtPosition(const ModelOverview& overview, Index position,
                                                      std::int32_t id, const RankingProgress& progress)
{
    if (!overview.model || !overview.run) return Error{"no model run to rank heads in"};
    const ModelRun& run = *overview.run;
    if (overview.model->recipe.readout == ReadoutKind::None)
        return Error{"the model has no readout: there is no prediction to change"};
    const Index before = run.logitRow(position);
    if (before < 0)
        return Error{"position " + std::to_string(position) + " is not one the model predicts at in this run"};
    const auto shared = overview.run;
    std::vector<HeadCandidate> candidates;
    for (const auto& layer : run.layers)
        for (Index i = 0; i < layer->attention.headCount(); ++i)
            if (!overview.isAblated({layer->modelIndex, i})) candidates.push_back({layer->modelIndex, i});
    const auto total = static_cast<Index>(candidates.size());
    Index done = 0;
    bool stopped = false;
    const LogitsWithoutHead without = [&](const HeadCandidate& candidate) -> Expected<RowVectorF> {
        if (stopped) return Error{"stopped"};
        std::set<ModelHead> heads = run.ablatedHeads;
        heads.insert({candidate.layer, candidate.head});
        // Only the one readout row the ranking reads.
        Expected<std::shared_ptr<const ModelRun>> after = runWith(*overview.model, shared, heads, {position});
        if (!after) return Error{after.error()};
        RowVectorF row = (*after)->logits.row((*after)->logitRow(position));
        ++done;
        if (progress && !progress(done, total)) stopped = true;
        return row;
    };
    Expected<std::vector<HeadEffect>> ranked =
        rankHeadsByPredictionChange(run.logits.row(before), id, candidates, without);
    if (stopped) return Error{"stopped"};
    return ranked;
}

}  // namespace qkv
