#include "core/pipeline/logit_lens.hpp"

#include <string>

#include "core/ops/soft_cap.hpp"
#include "core/pretrained/block_steps.hpp"

namespace qkv {

namespace {

// logits = Norm_final(h) E^T + b, soft-capped as the run's readout (n x V).
MatrixF lensLogits(const PretrainedModel& model, const MatrixF& h)
{
    const FamilyRecipe& r = model.recipe;
    const NormWeights& finalNorm = model.decoder.finalNorm;
    const MatrixF t = finalNorm.present() ? normRowsForward(h, finalNorm, r.norm, r.epsilon) : h;  // n x d_model
    MatrixF logits = tiedLogitsForward(t, model.readoutMatrix(), model.readout.bias);              // n x V
    const auto c = static_cast<float>(r.finalLogitSoftCap);
    if (c > 0.0f)
        for (Index i = 0; i < logits.rows(); ++i) softCapInPlace(logits.row(i).array(), c);
    return logits;
}

Expected<LogitLensLayer> lensLayer(Index layer, const MatrixF& logits, Index k)
{
    LogitLensLayer lens;
    lens.layer = layer;
    for (Index p = 0; p < logits.rows(); ++p) {
        Expected<std::vector<TokenProbability>> top = topPredictions(logits.row(p), k);
        if (!top) return Error{"the logit lens after layer " + std::to_string(layer) + ", position " + std::to_string(p) +
                               ": " + top.error()};
        lens.positions.push_back({p, std::move(*top)});
    }
    return lens;
}

}  // namespace

Expected<std::vector<LogitLensLayer>> logitLens(const PretrainedModel& model, const ModelRun& run, Index k)
{
    const FamilyRecipe& r = model.recipe;
    if (!r.causal() || !model.hasReadout())
        return Error{"the logit lens reads a causal language model's readout; the " + std::string(familyName(r.family)) +
                     " model " + (r.causal() ? "has no readout" : "is not a causal language model")};
    const auto n = static_cast<Index>(run.tokens.ids.size());
    const Index L = model.layerCount();
    // The run's logits in position order (its chosen rows may be in any order).
    MatrixF runLogits(n, run.logits.cols());  // n x V
    bool everyPosition = run.lastLayer == kEveryLayer && static_cast<Index>(run.hiddenStates.size()) == L + 1;
    for (Index p = 0; p < n && everyPosition; ++p) {
        const Index row = run.logitRow(p);
        everyPosition = row >= 0;
        if (everyPosition) runLogits.row(p) = run.logits.row(row);
    }
    if (!everyPosition) return Error{"the logit lens needs a whole run with every position's logits"};
    std::vector<LogitLensLayer> lens;
    for (Index l = 0; l < L; ++l) {
        // h_{l+1}; the last is after the final norm already, and its logits are the run's.
        const bool last = l == L - 1;
        Expected<LogitLensLayer> layer =
            lensLayer(l, last ? runLogits : lensLogits(model, run.hiddenStates[static_cast<std::size_t>(l + 1)]), k);
        if (!layer) return Error{layer.error()};
        lens.push_back(std::move(*layer));
    }
    return lens;
}

}  // namespace qkv
