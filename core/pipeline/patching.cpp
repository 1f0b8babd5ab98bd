#include "core/pipeline/patching.hpp"

#include <string>
#include <utility>

#include "core/ops/soft_cap.hpp"

namespace qkv {

namespace {

// Patched runs keep no maps (the grids read the last position's readout input only) and compute
// no logits: the metric reads two columns of the readout (logitDifference).
RunOptions patchingOptions()
{
    RunOptions options;
    options.keepScores = false;
    options.keepWeights = false;
    options.logitRows = LogitRows::None;
    return options;
}

// t at the last position: the last hidden state (after the final norm), what a causal readout reads.
RowVectorF lastReadoutInput(const ModelRun& run)
{
    const MatrixF& h = run.hiddenStates.back();  // n x d_model
    return h.row(h.rows() - 1);
}

Expected<RowVectorF> patchedReadout(const PretrainedModel& model, const PatchingRuns& runs, ActivationPatch patch)
{
    RunOptions options = patchingOptions();
    options.previous = runs.corrupt;
    patch.source = runs.clean;
    options.patch = std::move(patch);
    Expected<ModelRun> run = runPretrainedModel(model, runs.corrupt->tokens, options);
    if (!run) return Error{run.error()};
    return lastReadoutInput(*run);
}

// Whether head `head` of `layer` has the same z in both runs, bit for bit (its patch then
// changes nothing).
bool sameHeadOutputs(const PatchingRuns& runs, Index layer, Index head)
{
    const AttentionResult& clean = runs.clean->layer(layer).attention;
    const AttentionResult& corrupt = runs.corrupt->layer(layer).attention;
    const Index d_v = clean.d_v();
    return clean.headOutputs.middleCols(head * d_v, d_v) == corrupt.headOutputs.middleCols(head * d_v, d_v);
}

bool sameResidualRow(const PatchingRuns& runs, Index layer, Index position)
{
    const auto row = static_cast<std::size_t>(layer);
    return runs.clean->hiddenStates[row].row(position) == runs.corrupt->hiddenStates[row].row(position);
}

std::string tokenList(const SubwordTokenization& tokens)
{
    std::string list;
    for (const SubwordToken& token : tokens.tokens) list += (list.empty() ? "\"" : ", \"") + token.piece + "\"";
    return list;
}

}  // namespace

Status checkPatchingModel(const PretrainedModel& model)
{
    const FamilyRecipe& r = model.recipe;
    if (!model.hasReadout())
        return Error{model.checkpoint.path +
                     " has no readout (no logits over the vocabulary), so there is no answer "
                     "token to measure patching by"};
    if (r.encoderDecoder())
        return Error{"patching needs a causal language model; the " + std::string(familyName(r.family)) +
                     " model is an encoder-decoder"};
    if (!r.causal())
        return Error{"patching needs a causal language model; the " + std::string(familyName(r.family)) +
                     " model is encoder-only (its positions see the whole sentence)"};
    return {};
}

Expected<PatchingRuns> patchingRuns(const PretrainedModel& model, const std::vector<std::int32_t>& clean,
                                    const std::vector<std::int32_t>& corrupt)
{
    if (Status s = checkPatchingModel(model); !s) return Error{s.error()};
    if (clean.size() != corrupt.size())
        return Error{"the clean prompt cuts into " + std::to_string(clean.size()) +
                     " tokens and the corrupted one into " + std::to_string(corrupt.size()) +
                     "; patching needs as many"};
    PatchingRuns runs;
    for (const auto& [ids, into] : {std::pair{&clean, &runs.clean}, std::pair{&corrupt, &runs.corrupt}}) {
        ModelTokens tokens;
        tokens.ids = *ids;
        Expected<ModelRun> run = runPretrainedModel(model, tokens, patchingOptions());
        if (!run) return Error{run.error()};
        *into = std::make_shared<const ModelRun>(std::move(*run));
    }
    return runs;
}

Expected<PatchingReadouts> patchingReadouts(const PretrainedModel& model, const PatchingRuns& runs,
                                            const PatchingProgress& progress, const PatchingLayerDone& layerDone)
{
    const Index L = model.layerCount();
    const auto n = static_cast<Index>(runs.corrupt->tokens.ids.size());
    PatchingReadouts readouts;
    readouts.clean = lastReadoutInput(*runs.clean);
    readouts.corrupt = lastReadoutInput(*runs.corrupt);
    Index total = 0;
    for (Index l = 0; l < L; ++l) total += model.layersInModelOrder[static_cast<std::size_t>(l)].headCount + n;
    Index done = 0;
    for (Index l = 0; l < L; ++l) {
        const Index h = model.layersInModelOrder[static_cast<std::size_t>(l)].headCount;
        std::vector<RowVectorF> heads(static_cast<std::size_t>(h));
        for (Index i = 0; i < h; ++i, ++done) {
            if (progress && !progress(done, total)) return readouts;
            if (sameHeadOutputs(runs, l, i)) continue;  // empty: the corrupted run's
            ActivationPatch patch;
            patch.heads.insert(ModelHead{l, i});
            Expected<RowVectorF> t = patchedReadout(model, runs, std::move(patch));
            if (!t) return Error{t.error()};
            heads[static_cast<std::size_t>(i)] = std::move(*t);
        }
        std::vector<RowVectorF> residual(static_cast<std::size_t>(n));
        for (Index p = 0; p < n; ++p, ++done) {
            if (progress && !progress(done, total)) return readouts;
            if (sameResidualRow(runs, l, p)) continue;
            ActivationPatch patch;
            patch.residualLayer = l;
            patch.residualPosition = p;
            Expected<RowVectorF> t = patchedReadout(model, runs, std::move(patch));
            if (!t) return Error{t.error()};
            residual[static_cast<std::size_t>(p)] = std::move(*t);
        }
        readouts.heads.push_back(std::move(heads));
        readouts.residual.push_back(std::move(residual));
        readouts.layersDone = l + 1;
        if (layerDone) layerDone(readouts);
    }
    if (progress) progress(done, total);
    return readouts;
}

double logitDifference(const PretrainedModel& model, const RowVectorF& t, std::int32_t answer, std::int32_t wrong)
{
    const MatrixF& E = model.readoutMatrix();  // V x d_model
    const RowVectorF& b = model.readout.bias;  // 1 x V or empty
    const auto logit = [&](std::int32_t v) {
        double z = t.cast<double>().dot(E.row(v).cast<double>());
        if (b.size() > 0) z += static_cast<double>(b(v));
        return softCapped(z, model.recipe.finalLogitSoftCap);
    };
    return logit(answer) - logit(wrong);
}

Expected<PatchingGrids> patchingGrids(const PretrainedModel& model, const PatchingReadouts& readouts,
                                      std::int32_t answer, std::int32_t wrong)
{
    const Index V = model.recipe.vocabularySize;
    for (const std::int32_t id : {answer, wrong})
        if (id < 0 || id >= V)
            return Error{"token id " + std::to_string(id) + " is outside the vocabulary (0 to " +
                         std::to_string(V - 1) + ")"};
    if (answer == wrong)
        return Error{"the answer and the wrong token are the same token (id " + std::to_string(answer) + ")"};
    PatchingGrids grids;
    grids.answer = answer;
    grids.wrong = wrong;
    grids.cleanDifference = logitDifference(model, readouts.clean, answer, wrong);
    grids.corruptDifference = logitDifference(model, readouts.corrupt, answer, wrong);
    const double span = grids.cleanDifference - grids.corruptDifference;
    if (span == 0.0)
        return Error{"the clean and the corrupted prompt give the same logit difference (" +
                     std::to_string(grids.cleanDifference) + "), so no fraction of it can be recovered"};
    const auto fraction = [&](const RowVectorF& t) {
        return t.size() == 0 ? 0.0 : (logitDifference(model, t, answer, wrong) - grids.corruptDifference) / span;
    };
    for (const auto& [rows, into] :
         {std::pair{&readouts.heads, &grids.heads}, std::pair{&readouts.residual, &grids.residual}})
        for (const std::vector<RowVectorF>& layer : *rows) {
            std::vector<double>& out = into->emplace_back();
            for (const RowVectorF& t : layer) out.push_back(fraction(t));
        }
    return grids;
}

Expected<std::int32_t> singleTokenId(const PretrainedModel& model, const std::string& text, const std::string& what)
{
    if (!model.tokenizer)
        return Error{model.checkpoint.path + ": no tokenizer files beside it, so the " + what +
                     " cannot be cut into tokens"};
    Expected<SubwordTokenization> cut = model.tokenizer->encode(text);
    if (!cut) return Error{"the " + what + " \"" + text + "\": " + cut.error()};
    SubwordTokenization typed;
    for (const SubwordToken& token : cut->tokens)
        if (!token.special) typed.tokens.push_back(token);
    if (typed.tokens.size() != 1)
        return Error{"the " + what + " \"" + text + "\" must be one token of the vocabulary; it cuts into " +
                     std::to_string(typed.tokens.size()) + (typed.tokens.empty() ? "" : ": " + tokenList(typed))};
    return typed.tokens.front().id;
}

}  // namespace qkv
