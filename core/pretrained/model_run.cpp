#include "core/pretrained/model_run.hpp"

#include <algorithm>
#include <future>
#if defined(_OPENMP)
#include <omp.h>
#endif
#include <optional>
#include <string>

#include "core/common/limits.hpp"
#include "core/common/memory.hpp"
#include "core/common/stack_rows.hpp"
#include "core/embedding/first_layer_input.hpp"
#include "core/attention/causal_extension.hpp"
#include "core/attention/streamed_layer.hpp"
#include "core/ops/soft_cap.hpp"
#include "core/pretrained/block_steps.hpp"
#include "core/pretrained/model_memory.hpp"

namespace qkv {

namespace {

// A block the run could not read from the checkpoint's files (WeightResidency::OneBlockAtATime: the file
// changed since the model was loaded), or a streamed layer's error (a score that overflows).
// Thrown from deep in a stack's loop, turned into the run's error by runPretrainedModel.
struct BlockReadError {
    std::string message;
};

// A layer whose rows could not be taken from a prefix's run with the same bits (a head narrower
// than a whole vector register, head_blocks.cpp): runPretrainedModel runs the whole sentence.
struct PrefixNotReusable {};

// Widths (floats) that keep every row of a layer on the same vectorised paths wherever it starts:
// a row of d_model, d_ff or d_k floats then begins on a 64-byte boundary of its matrix.
constexpr Index kPrefixWidthMultiple = 16;

// ---- Input checks -----------------------------------------------------------------------------

// Position row of each token: positionOffset + t, except RoBERTa's pad tokens, which take row
// padTokenId while the others count from padTokenId + 1 (Hugging Face's
// create_position_ids_from_input_ids: cumsum(ids != pad) * (ids != pad) + pad).
std::vector<Index> positionRows(const FamilyRecipe& recipe, const std::vector<std::int32_t>& ids, Index firstPosition)
{
    std::vector<Index> rows(ids.size());
    Index counted = 0;
    for (std::size_t t = 0; t < ids.size(); ++t) {
        if (recipe.padTokenId >= 0) {
            const bool pad = ids[t] == recipe.padTokenId;
            if (!pad) ++counted;
            rows[t] = pad ? recipe.padTokenId : recipe.padTokenId + counted;
        } else {
            rows[t] = recipe.positionOffset + firstPosition + static_cast<Index>(t);
        }
    }
    return rows;
}

Status checkIds(const PretrainedModel& model, const std::vector<std::int32_t>& ids, const std::string& what)
{
    if (ids.empty()) return Error{"the " + what + " has no tokens"};
    const Index V = model.recipe.vocabularySize;
    for (std::size_t t = 0; t < ids.size(); ++t)
        if (ids[t] < 0 || ids[t] >= V)
            return Error{"token " + std::to_string(t) + " of the " + what + " has id " + std::to_string(ids[t]) +
                         ", but " + model.checkpoint.path + " has " + std::to_string(V) + " tokens (ids 0 to " +
                         std::to_string(V - 1) + ")"};
    const Index P = model.recipe.positionCount;
    if (P > 0 && static_cast<Index>(ids.size()) > P)
        return Error{"the " + what + " has " + std::to_string(ids.size()) +
                     " tokens; this model's positions go up to " + std::to_string(P)};
    if (static_cast<Index>(ids.size()) > limits::maxModelTokens)
        return Error{"the " + what + " has " + std::to_string(ids.size()) + " tokens; a whole model runs on up to " +
                     std::to_string(limits::maxModelTokens)};
    return {};
}

// What a run holds besides the weights the model holds already (model_memory.hpp), against
// limits::maxModelRunBytes: every layer's attention maps grow with the square of the tokens, so a
// long prompt is refused here, with the numbers, before any of it is allocated.
Status checkRunMemory(const PretrainedModel& model, const ModelTokens& tokens, const RunOptions& options)
{
    const ModelMemoryEstimate estimate = estimateModelRunMemory(model, tokens, options);
    const std::size_t run = modelRunBytes(estimate);
    if (run <= limits::maxModelRunBytes) return {};
    const auto gib = [](std::size_t bytes) {
        return std::to_string(static_cast<double>(bytes) / double(1 << 30)).substr(0, 4) + " GiB";
    };
    return Error{std::to_string(tokens.ids.size()) + " tokens: the run would hold about " + gib(run) +
                 " besides the weights (" + gib(estimate.layers) + " of them every layer's inputs, projections and " +
                 "attention maps); the limit is " + gib(limits::maxModelRunBytes) + ". Shorten the sentence" +
                 (options.pooledBlocks > 0 ? std::string()
                                           : std::string(", or stream the layers (qkv-studio export --pool N)"))};
}

Status checkTokens(const PretrainedModel& model, const ModelTokens& tokens)
{
    const bool encoderDecoder = model.recipe.encoderDecoder();
    if (Status s = checkIds(model, tokens.ids, encoderDecoder ? "source" : "sentence"); !s) return s;
    if (!encoderDecoder && !tokens.decoderIds.empty())
        return Error{"the " + std::string(familyName(model.recipe.family)) +
                     " model has no decoder: it reads one sequence (the decoder's ids are left out)"};
    if (encoderDecoder) return checkIds(model, tokens.decoderIds, "target");
    return {};
}

Status checkAblations(const PretrainedModel& model, const std::set<ModelHead>& heads)
{
    for (const ModelHead& head : heads) {
        if (head.layer < 0 || head.layer >= model.layerCount())
            return Error{"no attention layer " + std::to_string(head.layer) +
                         " to switch a head off in: the model has " + std::to_string(model.layerCount()) + " (0 to " +
                         std::to_string(model.layerCount() - 1) + ")"};
        const Index h = model.layersInModelOrder[static_cast<std::size_t>(head.layer)].headCount;
        if (head.head < 0 || head.head >= h)
            return Error{"layer " + std::to_string(head.layer) + " has " + std::to_string(h) + " heads (0 to " +
                         std::to_string(h - 1) + "); there is no head " + std::to_string(head.head)};
    }
    return {};
}

Status checkStop(const PretrainedModel& model, Index lastLayer)
{
    if (lastLayer == kEveryLayer || (lastLayer >= 0 && lastLayer < model.layerCount())) return {};
    return Error{"no attention layer " + std::to_string(lastLayer) + " to stop after: the model has " +
                 std::to_string(model.layerCount()) + " (0 to " + std::to_string(model.layerCount() - 1) + ")"};
}

// Positions of the sequence the readout reads (n of them): in range and each named once.
Status checkLogitPositions(const std::vector<Index>& positions, Index n)
{
    std::vector<bool> seen(static_cast<std::size_t>(n), false);
    for (const Index p : positions) {
        if (p < 0 || p >= n)
            return Error{"no position " + std::to_string(p) + " to compute the logits at: the sequence the readout reads has " +
                         std::to_string(n) + " tokens (positions 0 to " + std::to_string(n - 1) + ")"};
        if (seen[static_cast<std::size_t>(p)])
            return Error{"position " + std::to_string(p) + " is asked for twice among the logits' positions"};
        seen[static_cast<std::size_t>(p)] = true;
    }
    return {};
}

// A patch's source and what it names exist, and the run can take them (one stack, not streamed).
Status checkPatch(const PretrainedModel& model, const ModelTokens& tokens, const RunOptions& options)
{
    const ActivationPatch& patch = options.patch;
    if (patch.empty()) return {};
    if (model.recipe.encoderDecoder())
        return Error{"patching runs on one sequence; the " + std::string(familyName(model.recipe.family)) +
                     " model is an encoder-decoder"};
    if (options.pooledBlocks > 0) return Error{"a streamed run (pooled maps) cannot be patched"};
    const ModelRun* source = patch.source.get();
    if (!source || source->lastLayer != kEveryLayer || static_cast<Index>(source->layers.size()) != model.layerCount() ||
        (!source->layers.empty() && !source->layers.front()->streamedHeads.empty()))
        return Error{"a patch needs a whole, unstreamed run of the same model to take its values from"};
    if (source->tokens.ids.size() != tokens.ids.size())
        return Error{"a patch's source run has " + std::to_string(source->tokens.ids.size()) + " tokens and this run " +
                     std::to_string(tokens.ids.size()) + "; patching needs as many"};
    if (Status s = checkAblations(model, patch.heads); !s) return Error{"patched head: " + s.error()};
    if (patch.residualLayer < 0) return {};
    if (patch.residualLayer >= model.layerCount())
        return Error{"no layer " + std::to_string(patch.residualLayer) + " to patch the residual stream of: the model has " +
                     std::to_string(model.layerCount())};
    if (patch.residualPosition < 0 || patch.residualPosition >= static_cast<Index>(tokens.ids.size()))
        return Error{"no position " + std::to_string(patch.residualPosition) + " to patch: the sentence has " +
                     std::to_string(tokens.ids.size()) + " tokens"};
    return {};
}

Status checkOptions(const PretrainedModel& model, const ModelTokens& tokens, const RunOptions& options)
{
    if (Status s = checkAblations(model, options.ablatedHeads); !s) return s;
    if (Status s = checkPatch(model, tokens, options); !s) return s;
    if (Status s = checkStop(model, options.lastLayer); !s) return s;
    if (options.logitRows != LogitRows::Chosen) return {};
    const std::vector<std::int32_t>& read = model.recipe.encoderDecoder() ? tokens.decoderIds : tokens.ids;
    return checkLogitPositions(options.logitPositions, static_cast<Index>(read.size()));
}

// ---- Embeddings (first_layer_input.hpp's recipes) ---------------------------------------------------

// scale E_tok[ids] + E_pos[rows] (+ E_type[0]), in double as normalizedEmbeddingSum sums it, for
// the tokens from position firstPosition (a run typed on computes only its new tokens).  n x d_model
MatrixD embeddingSum(const FamilyRecipe& recipe, const EmbeddingWeights& tables, const std::vector<std::int32_t>& ids,
                     Index firstPosition)
{
    const auto n = static_cast<Index>(ids.size()) - firstPosition;
    const std::vector<std::int32_t> computed(ids.begin() + firstPosition, ids.end());
    const std::vector<Index> rows = positionRows(recipe, computed, firstPosition);
    MatrixD sum(n, recipe.d_model);
    for (Index t = 0; t < n; ++t) {
        sum.row(t) = tables.tokens.row(computed[static_cast<std::size_t>(t)]).cast<double>();
        if (recipe.embeddingScale != 1.0f) sum.row(t) *= static_cast<double>(recipe.embeddingScale);
        if (recipe.positions == PretrainedPositions::Learned || recipe.positions == PretrainedPositions::Sinusoidal)
            sum.row(t) += tables.positions.row(rows[static_cast<std::size_t>(t)]).cast<double>();
        if (recipe.tokenTypes) sum.row(t) += tables.tokenTypes.row(0).cast<double>();
    }
    return sum;
}

// ---- The blocks ---------------------------------------------------------------------------------

struct StackState {
    std::vector<MatrixF> hidden;                          // h_0 .. h_b
    std::vector<std::shared_ptr<const LayerRun>> layers;  // this stack's layers so far
};

struct StackContext {
    const PretrainedModel& model;
    const StackWeights& weights;
    ModelStack stack;
    bool causal;
    const MatrixF* encoderOutput;  // cross-attention's X_kv, or null
    const RunOptions& options;
    // A causal model typed on: the first `kept` rows of every layer and hidden state are
    // `prefix`'s, and the blocks compute the rows after them only (h holds those rows).
    const ModelRun* prefix = nullptr;
    Index kept = 0;
};

// A hidden state of the whole sentence: the prefix's rows over the computed ones.
MatrixF wholeRows(const StackContext& c, const MatrixF& prefixRows, const MatrixF& computed)
{
    return c.prefix ? stackRows(prefixRows, c.kept, computed) : computed;
}

AttentionOptions attentionOptions(const StackContext& c, const BlockWeights& block,
                                  const AttentionSublayerWeights& sublayer, bool cross)
{
    const Index d_k = sublayer.attention.grouping(sublayer.layer.headCount).d_k;
    AttentionOptions options = modelLayerAttentionOptions(c.model, c.stack, block.block, d_k, cross);
    options.keepScores = c.options.keepScores;
    options.keepWeights = c.options.keepWeights;
    options.ablated.assign(static_cast<std::size_t>(sublayer.layer.headCount), false);
    for (const ModelHead& head : c.options.ablatedHeads)
        if (head.layer == sublayer.modelIndex) options.ablated[static_cast<std::size_t>(head.head)] = true;
    return options;
}

// A present norm of h's rows, or h itself (a block without that norm: OLMo 2 before its sublayers,
// a trained model without norms).
MatrixF normIfPresent(const MatrixF& h, const NormWeights& norm, const FamilyRecipe& r)
{
    return norm.present() ? normRowsForward(h, norm, r.norm, r.epsilon) : h;
}

// The patched heads' blocks of Concat (rows from c.kept: the rows before are the same in both
// runs) taken from the patch's source, and the output's rows from there projected again:
// Concat W^O + b^O with the patched blocks, as the layer's step 5 computes it.
void patchHeadOutputs(const StackContext& c, const AttentionSublayerWeights& sublayer, const AttentionWeights& w,
                      AttentionResult& attention)
{
    const ActivationPatch& patch = c.options.patch;
    bool patched = false;
    for (const ModelHead& head : patch.heads) {
        if (head.layer != sublayer.modelIndex) continue;
        const MatrixF& source = patch.source->layer(head.layer).attention.headOutputs;  // n x h d_v
        const Index d_v = attention.d_v();
        const Index rows = attention.headOutputs.rows() - c.kept;
        attention.headOutputs.block(c.kept, head.head * d_v, rows, d_v) =
            source.block(c.kept, head.head * d_v, rows, d_v);
        patched = true;
    }
    if (patched) projectAttentionOutput(attention, w, c.kept);
}

// One attention sublayer on the residual stream h (n x d_model), in place:
//   post: h <- Norm(h + Attention(h, X_kv));  pre: h <- h + Norm'(Attention(Norm(h), X_kv)), where
//   the norms that the block lacks are left out (family_recipe.hpp).
std::shared_ptr<const LayerRun> attentionSublayerForward(const StackContext& c, const BlockWeights& block,
                                                         const AttentionSublayerWeights& sublayer, bool cross,
                                                         MatrixF& h, const MatrixF* exactQueryInput)
{
    const FamilyRecipe& r = c.model.recipe;
    auto run = std::make_shared<LayerRun>();
    run->layer = sublayer.layer;
    run->modelIndex = sublayer.modelIndex;
    run->stack = c.stack;
    run->block = block.block;
    const bool pre = r.placement == NormPlacement::Pre;
    const MatrixF computedInput = exactQueryInput ? *exactQueryInput : pre ? normIfPresent(h, sublayer.norm, r) : h;
    const AttentionWeights& w = sublayer.attention;
    const HeadGrouping grouping = w.grouping(sublayer.layer.headCount);
    if (c.prefix) {
        if (grouping.d_k % kPrefixWidthMultiple != 0 || grouping.valueDim() % kPrefixWidthMultiple != 0)
            throw PrefixNotReusable{};
        const LayerRun& before = c.prefix->layer(sublayer.modelIndex);
        run->queryInput = stackRows(before.queryInput, c.kept, computedInput);  // n x d_model
        run->keyValueInput = run->queryInput;
        run->attention = extendCausalAttention(before.attention, c.kept, run->queryInput, w, grouping,
                                               attentionOptions(c, block, sublayer, cross));
        patchHeadOutputs(c, sublayer, w, run->attention);
        const MatrixF output = run->attention.output.bottomRows(h.rows());  // the computed rows
        h += sublayer.outputNorm.present() ? normRowsForward(output, sublayer.outputNorm, r.norm, r.epsilon) : output;
        if (!pre) h = normIfPresent(h, sublayer.norm, r);
        return run;
    }
    run->queryInput = computedInput;
    run->keyValueInput = cross ? *c.encoderOutput : run->queryInput;
    if (c.options.pooledBlocks > 0) {
        StreamedLayerOptions streamed;
        streamed.pooledRows = streamed.pooledColumns = c.options.pooledBlocks;
        streamed.valueNorms = c.options.pooledValueNorms;
        Expected<StreamedLayer> layer = streamedMultiHeadAttention(run->queryInput, run->keyValueInput, w, grouping,
                                                                   attentionOptions(c, block, sublayer, cross), streamed);
        if (!layer) throw BlockReadError{sublayer.layer.name + ": " + layer.error()};
        run->attention = std::move(layer->attention);
        run->streamedHeads = std::move(layer->heads);
        run->transformedNorms = std::move(layer->transformedNorms);
    } else {
        run->attention = multiHeadAttentionForward(run->queryInput, run->keyValueInput, w, grouping,
                                                   attentionOptions(c, block, sublayer, cross));
        patchHeadOutputs(c, sublayer, w, run->attention);
    }
    if (sublayer.outputNorm.present())
        h += normRowsForward(run->attention.output, sublayer.outputNorm, r.norm, r.epsilon);
    else
        h += run->attention.output;  // residual (paper section 3.1)
    if (!pre) h = normIfPresent(h, sublayer.norm, r);
    return run;
}

// One block: self-attention, cross-attention (encoder-decoder decoders), MLP. Returns false when
// it stopped after the sublayer `stopLayer` (model order; kEveryLayer: never), h then half done.
bool blockForward(const StackContext& c, const BlockWeights& block, MatrixF& h, StackState& state,
                  const MatrixF* exactQueryInput, Index stopLayer)
{
    const FamilyRecipe& r = c.model.recipe;
    // GPT-NeoX's parallel residual: the MLP reads the block's input, not the attention's result.
    const MatrixF blockInput = r.parallelResidual ? h : MatrixF();  // n x d_model
    state.layers.push_back(attentionSublayerForward(c, block, block.selfAttention, false, h, exactQueryInput));
    if (block.selfAttention.modelIndex == stopLayer) return false;
    if (block.crossAttention) {
        state.layers.push_back(attentionSublayerForward(c, block, *block.crossAttention, true, h, nullptr));
        if (block.crossAttention->modelIndex == stopLayer) return false;
    }
    // An attention-only block (d_ff = 0, the app's own attention-only models) has no MLP sublayer.
    if (r.feedForwardWidth(c.stack) == 0) return true;
    const bool pre = r.placement == NormPlacement::Pre;
    const MatrixF& read = r.parallelResidual ? blockInput : h;
    const MatrixF x = pre ? normIfPresent(read, block.feedForwardNorm, r) : h;  // n x d_model
    MatrixF y = feedForwardForward(x, block.feedForward, r.activation);        // n x d_model
    if (block.feedForwardOutputNorm.present()) y = normRowsForward(y, block.feedForwardOutputNorm, r.norm, r.epsilon);
    h += y;
    if (!pre) h = normIfPresent(h, block.feedForwardNorm, r);
    return true;
}

// The residual stream entering block b (its layer `layer`) at the patch's position, taken from
// the patch's source: in h (rows from c.kept), in the recorded hidden state h_b, and for a first
// block that reads an exact X_q (stackInput) in a copy of that (returns true: use the copy).
bool patchResidual(const StackContext& c, Index layer, Index b, MatrixF& h, StackState& state,
                   const MatrixF* exactQueryInput, MatrixF& patchedQueryInput)
{
    const ActivationPatch& patch = c.options.patch;
    if (patch.residualLayer != layer) return false;
    const Index p = patch.residualPosition;  // >= c.kept (firstPatchedRow)
    const auto row = patch.source->hiddenStates[static_cast<std::size_t>(b)].row(p);
    h.row(p - c.kept) = row;
    state.hidden[static_cast<std::size_t>(b)].row(p) = row;
    if (!exactQueryInput) return false;
    patchedQueryInput = *exactQueryInput;
    patchedQueryInput.row(p - c.kept) = patch.source->layer(layer).queryInput.row(p);
    return true;
}

// Runs blocks firstBlock.. of a stack; state holds h_0..h_firstBlock (and the layers before).
// Afterwards state.hidden has L + 1 entries, the last after the stack's final norm, or, when it
// stopped after `stopLayer` inside block b (returns false), h_0..h_b.
bool stackForward(const StackContext& c, StackState& state, Index firstBlock, const MatrixF* exactFirstQueryInput,
                  Index stopLayer)
{
    // n x d_model, or the computed rows of a run typed on
    MatrixF h = state.hidden[static_cast<std::size_t>(firstBlock)].bottomRows(
        state.hidden[static_cast<std::size_t>(firstBlock)].rows() - c.kept);
    const auto count = static_cast<Index>(c.weights.blocks.size());
    // OneBlockAtATime: the block being run, its memory reused by the next; with convertAhead two,
    // block b + 1 converted on a thread of its own (one OpenMP thread) while block b computes.
    std::optional<BlockWeights> converted[2];
    const bool ahead = c.model.residency == WeightResidency::OneBlockAtATime && c.model.convertAhead && stopLayer < 0;
    const auto slot = [ahead](Index b) { return ahead ? static_cast<std::size_t>(b % 2) : std::size_t{0}; };
    std::future<Expected<const BlockWeights*>> pending;  // block b + 1's conversion; waited for on leaving
    for (Index b = firstBlock; b < count; ++b) {
        const Expected<const BlockWeights*> block =
            pending.valid() ? pending.get() : runBlockWeights(c.model, c.weights, b, converted[slot(b)]);
        if (!block) throw BlockReadError{block.error()};
        if (ahead && b + 1 < count)
            pending = std::async(std::launch::async, [&c, &converted, next = b + 1, storage = slot(b + 1)] {
#if defined(_OPENMP)
                omp_set_num_threads(1);  // this thread's teams: the products' team has the cores
#endif
                return runBlockWeights(c.model, c.weights, next, converted[storage]);
            });
        MatrixF patchedQueryInput;  // block 0's exact X_q with the patched row
        const MatrixF* firstQueryInput = b == 0 ? exactFirstQueryInput : nullptr;
        if (patchResidual(c, (*block)->selfAttention.modelIndex, b, h, state, firstQueryInput, patchedQueryInput))
            firstQueryInput = &patchedQueryInput;
        if (!blockForward(c, **block, h, state, firstQueryInput, stopLayer)) return false;
        const auto next = static_cast<std::size_t>(b + 1);
        state.hidden.push_back(wholeRows(c, c.prefix ? c.prefix->hiddenStates[next] : MatrixF(), h));
    }
    if (c.weights.finalNorm.present())
        state.hidden.back() =
            wholeRows(c, c.prefix ? c.prefix->hiddenStates.back() : MatrixF(),
                      normRowsForward(h, c.weights.finalNorm, c.model.recipe.norm, c.model.recipe.epsilon));
    return true;
}

// h_0 of a stack, and for a pre-norm first block its X_q computed from the double sum (as
// gpt2ModelInput builds the first layer's input: the same bits as the one-layer path). A run
// typed on computes the rows after the prefix's (exactFirstQueryInput then holds those rows).
void stackInput(const StackContext& c, const std::vector<std::int32_t>& ids, StackState& state,
                MatrixF& exactFirstQueryInput)
{
    const FamilyRecipe& r = c.model.recipe;
    const StackWeights& weights = c.weights;
    const MatrixD sum = embeddingSum(r, weights.embeddings, ids, c.kept);  // (n - kept) x d_model
    MatrixF h0;
    if (r.embeddingNorm)
        h0 = r.norm == PretrainedNorm::LayerNorm
                 ? layerNormRows(sum, LayerNormParameters{weights.embeddings.norm.gamma, weights.embeddings.norm.beta,
                                                          r.epsilon})
                 : normRowsForward(sum.cast<float>(), weights.embeddings.norm, r.norm, r.epsilon);
    else
        h0 = sum.cast<float>();
    state.hidden.push_back(wholeRows(c, c.prefix ? c.prefix->hiddenStates.front() : MatrixF(), h0));
    const NormWeights& firstNorm = weights.blocks.front().selfAttention.norm;
    if (r.placement == NormPlacement::Pre && r.norm == PretrainedNorm::LayerNorm && !r.embeddingNorm && firstNorm.present())
        exactFirstQueryInput = layerNormRows(sum, LayerNormParameters{firstNorm.gamma, firstNorm.beta, r.epsilon});
}

// ---- Readout --------------------------------------------------------------------------------------

// The readout's input t at every position: the last hidden state, or a masked LM's
// t = Norm(act(h W_t + b_t)) (BertLMPredictionHead). Every row even when a few logits are asked
// for: it costs n d_model^2 multiply-adds beside the logits' n d_model V, and a product over all
// rows gives each row the bits of a whole run (Eigen sums a lone row in another order).
MatrixF readoutInput(const PretrainedModel& model, const MatrixF& h)
{
    const FamilyRecipe& r = model.recipe;
    const ReadoutWeights& w = model.readout;
    if (r.readout != ReadoutKind::MaskedLm) return h;
    MatrixF t = denseForward(h, w.transform, w.transformBias);  // n x d_model
    blockActivationForward(t, r.readoutActivation);
    return normRowsForward(t, w.transformNorm, r.norm, r.readoutEpsilon);
}

// Gemma 2's final soft cap c tanh(logits / c), a row at a time from an aligned copy: every row's
// logits then take the same (vectorised or not) path wherever the row lies.
MatrixF softCapped(MatrixF logits, const FamilyRecipe& recipe)
{
    const auto c = static_cast<float>(recipe.finalLogitSoftCap);
    if (c <= 0.0f) return logits;
    RowVectorF row(logits.cols());
    for (Index i = 0; i < logits.rows(); ++i) {
        row = logits.row(i);
        softCapInPlace(row.array(), c);
        logits.row(i) = row;
    }
    return logits;
}

// logits = t E^T + b at the asked positions (k x V), and the positions in row order, soft-capped.
// A run typed on (prefix) takes every position's logits before `kept` from the prefix's run when
// it computed them all.
void readoutForward(const PretrainedModel& model, const MatrixF& h, const RunOptions& options, ModelRun& run,
                    const ModelRun* prefix, Index kept)
{
    if (options.logitRows == LogitRows::None) return;
    const MatrixF& E = model.readoutMatrix();
    if (options.logitRows == LogitRows::All) {
        const Index first = prefix && prefix->logitRows == LogitRows::All ? kept : 0;
        const MatrixF t = readoutInput(model, h.bottomRows(h.rows() - first));  // (n - first) x d_model
        MatrixF computed = softCapped(tiedLogitsForward(t, E, model.readout.bias), model.recipe);
        // Moved, not copied: n x V floats, 205 MB for GPT-2 on 1,024 tokens.
        if (first > 0) run.logits = stackRows(prefix->logits, first, computed);  // n x V
        else run.logits = std::move(computed);
        run.logitPositions.resize(static_cast<std::size_t>(h.rows()));
        for (Index p = 0; p < h.rows(); ++p) run.logitPositions[static_cast<std::size_t>(p)] = p;
    } else {
        // Chosen rows: those before `kept` that the prefix's run computed are its rows.
        run.logitPositions = options.logitPositions;
        std::vector<Index> lent(run.logitPositions.size(), -1);  // the prefix's row of each, or -1
        std::vector<Index> computed;
        for (std::size_t r = 0; r < run.logitPositions.size(); ++r) {
            const Index p = run.logitPositions[r];
            if (prefix && p < kept) lent[r] = prefix->logitRow(p);
            if (lent[r] < 0) computed.push_back(p);
        }
        const MatrixF t = computed.empty() ? MatrixF() : readoutInput(model, h);  // n x d_model
        const MatrixF rows = softCapped(tiedLogitsRowsForward(t, computed, E, model.readout.bias), model.recipe);
        run.logits = freshLargeMatrix(static_cast<Index>(run.logitPositions.size()), E.rows());  // k x V
        Index next = 0;
        for (std::size_t r = 0; r < run.logitPositions.size(); ++r)
            run.logits.row(static_cast<Index>(r)) = lent[r] >= 0 ? prefix->logits.row(lent[r]) : rows.row(next++);
    }
}

// ---- Reuse ----------------------------------------------------------------------------------------

// The first layer (model order) whose switched-off heads differ between the two sets, or
// layerCount when none does.
Index firstChangedLayer(const PretrainedModel& model, const std::set<ModelHead>& a, const std::set<ModelHead>& b)
{
    Index first = model.layerCount();
    for (const std::set<ModelHead>* one : {&a, &b})
        for (const ModelHead& head : *one)
            if (!(one == &a ? b : a).contains(head)) first = std::min(first, head.layer);
    return first;
}

// The positions a causal language model typed on takes from `previous`: the tokens both runs
// share from the start (0: none, run the whole sentence). Query t of every layer reads positions
// 0..t only, so those rows of every layer, hidden state and logit are the previous run's, with
// the same bits (row_products.hpp, head_blocks.hpp) when every width is a whole number of vector
// registers (and each head's too, checked as the layers run).
Index sharedPrefix(const PretrainedModel& model, const ModelRun& previous, const ModelTokens& tokens,
                   const RunOptions& options)
{
    const FamilyRecipe& r = model.recipe;
    if (!r.causal() || r.padTokenId >= 0 || options.pooledBlocks > 0) return 0;
    if (r.d_model % kPrefixWidthMultiple != 0 || r.d_ff % kPrefixWidthMultiple != 0) return 0;
    const bool previousStreamed = !previous.layers.empty() && !previous.layers.front()->streamedHeads.empty();
    // The previous run holds every layer this one runs: it ran them all, or stopped where this one stops.
    const bool coversThisRun = previous.lastLayer == kEveryLayer || previous.lastLayer == options.lastLayer;
    if (previousStreamed || !coversThisRun || previous.keepScores != options.keepScores ||
        previous.keepWeights != options.keepWeights ||
        previous.ablatedHeads != options.ablatedHeads || !previous.tokens.decoderIds.empty())
        return 0;
    return sharedStart(previous.tokens.ids, tokens.ids);
}

// The first layer (model order) a patch changes, or layerCount for none.
Index firstPatchedLayer(const PretrainedModel& model, const ActivationPatch& patch)
{
    Index first = patch.residualLayer >= 0 ? patch.residualLayer : model.layerCount();
    for (const ModelHead& head : patch.heads) first = std::min(first, head.layer);
    return first;
}

// The first row in which a and b (two runs' values of one activation) differ in any bit, or
// their row count when none does.
Index firstDifferentRow(const Eigen::Ref<const MatrixF>& a, const Eigen::Ref<const MatrixF>& b)
{
    for (Index row = 0; row < a.rows(); ++row)
        if (a.row(row) != b.row(row)) return row;
    return a.rows();
}

// The positions a patched run of a causal model takes from `previous`, the same run without the
// patch: query t of every layer reads positions 0..t only, so the rows before the first row the
// patch changes (its values there equal the previous run's, bit for bit) are the previous run's
// in the patched layer and every later one. 0: run every position.
Index firstPatchedRow(const PretrainedModel& model, const ModelRun& previous, const RunOptions& options)
{
    const FamilyRecipe& r = model.recipe;
    const ActivationPatch& patch = options.patch;
    if (patch.empty() || !r.causal() || r.padTokenId >= 0 || options.pooledBlocks > 0) return 0;
    if (r.d_model % kPrefixWidthMultiple != 0 || r.d_ff % kPrefixWidthMultiple != 0) return 0;
    if (!previous.patch.empty() || previous.ablatedHeads != options.ablatedHeads ||
        previous.lastLayer != kEveryLayer || previous.keepScores != options.keepScores ||
        previous.keepWeights != options.keepWeights)
        return 0;
    const auto n = static_cast<Index>(previous.tokens.ids.size());
    Index first = n;
    if (patch.residualLayer >= 0) first = patch.residualPosition;
    for (const ModelHead& head : patch.heads) {
        const AttentionResult& before = previous.layer(head.layer).attention;
        const AttentionResult& after = patch.source->layer(head.layer).attention;
        const Index d_v = before.d_v();
        first = std::min(first, firstDifferentRow(before.headOutputs.middleCols(head.head * d_v, d_v),
                                                  after.headOutputs.middleCols(head.head * d_v, d_v)));
    }
    // A patch that changes nothing still recomputes the last row (the readout's).
    return std::min(first, n - 1);
}

bool reusable(const ModelRun& previous, const ModelTokens& tokens, const RunOptions& options)
{
    const bool previousStreamed = !previous.layers.empty() && !previous.layers.front()->streamedHeads.empty();
    return previous.tokens.ids == tokens.ids && previous.tokens.decoderIds == tokens.decoderIds &&
           previous.keepScores == options.keepScores && previous.keepWeights == options.keepWeights &&
           options.pooledBlocks == 0 && !previousStreamed;
}

// The run asks for what `previous` holds: the same last layer and the same readout rows.
bool sameRequest(const ModelRun& previous, const RunOptions& options)
{
    return previous.lastLayer == options.lastLayer && previous.logitRows == options.logitRows &&
           (options.logitRows != LogitRows::Chosen || previous.logitPositions == options.logitPositions);
}

// Layers (model order) of `previous` in blocks it ran whole, with their outputs in its hidden
// states: every layer, or for a run stopped inside block b of a stack the layers before b.
Index layersOfWholeBlocks(const PretrainedModel& model, const ModelRun& previous)
{
    if (previous.lastLayer == kEveryLayer) return model.layerCount();
    const LayerRun& stop = previous.layer(previous.lastLayer);
    const StackWeights& stack = stop.stack == ModelStack::Decoder ? model.decoder : model.encoder;
    return stack.blocks[static_cast<std::size_t>(stop.block)].selfAttention.modelIndex;
}

// The block of `stack` whose layers start at or contain model layer `layer` (its first
// block to recompute), or the stack's block count when the layer lies after the stack.
Index blockOfLayer(const StackWeights& stack, Index layer)
{
    for (const BlockWeights& block : stack.blocks) {
        const Index last = block.crossAttention ? block.crossAttention->modelIndex : block.selfAttention.modelIndex;
        if (layer <= last) return block.block;
    }
    return static_cast<Index>(stack.blocks.size());
}

// state = the previous run's hidden states h_0..h_first and its layers before block `first`.
void reuseStack(StackState& state, const std::vector<MatrixF>& hidden, const ModelRun& previous,
                const StackWeights& stack, Index first)
{
    state.hidden.assign(hidden.begin(), hidden.begin() + first + 1);
    const BlockWeights& last = stack.blocks.back();
    const Index before =
        first < static_cast<Index>(stack.blocks.size())
            ? stack.blocks[static_cast<std::size_t>(first)].selfAttention.modelIndex
            : (last.crossAttention ? last.crossAttention->modelIndex : last.selfAttention.modelIndex) + 1;
    const Index start = stack.blocks.front().selfAttention.modelIndex;
    for (Index i = start; i < before; ++i) state.layers.push_back(previous.layers[static_cast<std::size_t>(i)]);
}

// ---- One stack ------------------------------------------------------------------------------------

// What a stack run starts from: the run it may take blocks from (null: none) and the first block
// to compute (blocks before it are taken from `previous`).
struct StackStart {
    const ModelRun* previous = nullptr;
    const std::vector<MatrixF>* previousHidden = nullptr;
    Index firstBlock = 0;
};

// Runs one stack on `ids` from `start`, stopping after options.lastLayer when it lies in the
// stack. Returns false when the run stopped in it. When the stop lies in a block that `previous`
// holds whole, nothing is computed: the layers up to the stop and h_0..h_b are shared.
bool runStack(const StackContext& c, const std::vector<std::int32_t>& ids, const StackStart& start, StackState& state)
{
    const Index stopLayer = c.options.lastLayer;
    const auto count = static_cast<Index>(c.weights.blocks.size());
    const Index stopBlock = stopLayer == kEveryLayer ? count : blockOfLayer(c.weights, stopLayer);
    const bool stopsHere = stopBlock < count;
    if (start.firstBlock > stopBlock || (start.firstBlock == count && !stopsHere)) {
        reuseStack(state, *start.previousHidden, *start.previous, c.weights, std::min(start.firstBlock, stopBlock));
        if (!stopsHere) return true;
        for (Index i = c.weights.blocks[static_cast<std::size_t>(stopBlock)].selfAttention.modelIndex; i <= stopLayer; ++i)
            state.layers.push_back(start.previous->layers[static_cast<std::size_t>(i)]);
        return false;
    }
    MatrixF exactFirstQueryInput;
    if (start.firstBlock == 0)
        stackInput(c, ids, state, exactFirstQueryInput);
    else
        reuseStack(state, *start.previousHidden, *start.previous, c.weights, start.firstBlock);
    return stackForward(c, state, start.firstBlock, exactFirstQueryInput.size() > 0 ? &exactFirstQueryInput : nullptr,
                        stopLayer);
}

}  // namespace

Index sharedStart(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b)
{
    const auto common = static_cast<std::ptrdiff_t>(std::min(a.size(), b.size()));
    return static_cast<Index>(std::mismatch(a.begin(), a.begin() + common, b.begin()).first - a.begin());
}

Index ModelRun::logitRow(Index position) const
{
    const auto found = std::find(logitPositions.begin(), logitPositions.end(), position);
    return found == logitPositions.end() ? -1 : static_cast<Index>(found - logitPositions.begin());
}

namespace {

Expected<ModelRun> runModel(const PretrainedModel& model, const ModelTokens& tokens, const RunOptions& options,
                            bool allowPrefix)
{
    if (Status s = checkTokens(model, tokens); !s) return Error{s.error()};
    if (Status s = checkOptions(model, tokens, options); !s) return Error{s.error()};
    if (Status s = checkRunMemory(model, tokens, options); !s) return Error{s.error()};
    const FamilyRecipe& r = model.recipe;
    const ModelRun* previous =
        options.previous && reusable(*options.previous, tokens, options) ? options.previous.get() : nullptr;
    const Index changed =
        previous ? std::min({firstChangedLayer(model, previous->ablatedHeads, options.ablatedHeads),
                             firstPatchedLayer(model, previous->patch), firstPatchedLayer(model, options.patch)})
                 : 0;
    if (previous && changed == model.layerCount() && sameRequest(*previous, options)) {
        ModelRun same = *previous;
        same.firstRecomputedLayer = model.layerCount();
        return same;
    }
    // Layers before `kept` are taken from the previous run, the others computed.
    const Index kept = previous ? std::min(changed, layersOfWholeBlocks(model, *previous)) : 0;
    // A causal model typed on: the rows of the tokens both runs share.
    const ModelRun* prefix = nullptr;
    Index keptPositions = 0;
    if (!previous && options.previous && allowPrefix) {
        keptPositions = sharedPrefix(model, *options.previous, tokens, options);
        if (keptPositions > 0) prefix = options.previous.get();
    } else if (previous && allowPrefix) {
        // A patched run: the previous run's rows before the patch's first changed row, in the
        // layers from the patched one (the layers before are the previous run's whole).
        keptPositions = changed < model.layerCount() ? firstPatchedRow(model, *previous, options) : 0;
        if (keptPositions > 0) prefix = previous;
    }
    const Index lastRun = options.lastLayer == kEveryLayer ? model.layerCount() - 1 : options.lastLayer;
    ModelRun run;
    run.tokens = tokens;
    run.ablatedHeads = options.ablatedHeads;
    run.patch = options.patch;
    run.keepScores = options.keepScores;
    run.keepWeights = options.keepWeights;
    run.lastLayer = options.lastLayer;
    run.logitRows = options.logitRows;
    run.firstRecomputedLayer = kept <= lastRun ? kept : model.layerCount();
    run.firstRecomputedPosition = keptPositions;

    // The one sequence's stack (encoder-only, decoder-only) or the encoder.
    const bool hasEncoder = r.encoderLayerCount > 0;
    const StackWeights& first = hasEncoder ? model.encoder : model.decoder;
    StackState state;
    const StackStart firstStart{previous, previous ? &previous->hiddenStates : nullptr,
                                previous ? blockOfLayer(first, kept) : 0};
    const StackContext context{model,   first,  hasEncoder ? ModelStack::Encoder : ModelStack::Decoder,
                               r.causal(), nullptr, options, prefix, keptPositions};
    bool whole = runStack(context, tokens.ids, firstStart, state);
    run.hiddenStates = std::move(state.hidden);
    run.layers = std::move(state.layers);

    if (whole && r.encoderDecoder()) {
        // The decoder reads the encoder's output in every cross-attention.
        StackState decoderState;
        const bool encoderRecomputed = firstStart.firstBlock < static_cast<Index>(first.blocks.size());
        const StackStart decoderStart{previous, previous ? &previous->decoderHiddenStates : nullptr,
                                      encoderRecomputed ? 0 : blockOfLayer(model.decoder, kept)};
        const StackContext decoderContext{model,  model.decoder, ModelStack::Decoder, true, &run.hiddenStates.back(),
                                          options};
        whole = runStack(decoderContext, tokens.decoderIds, decoderStart, decoderState);
        run.decoderHiddenStates = std::move(decoderState.hidden);
        for (auto& layer : decoderState.layers) run.layers.push_back(std::move(layer));
    }
    if (whole && model.hasReadout())
        readoutForward(model, r.encoderDecoder() ? run.decoderHiddenStates.back() : run.hiddenStates.back(), options,
                       run, prefix, keptPositions);
    return run;
}

}  // namespace

Expected<ModelRun> runPretrainedModel(const PretrainedModel& model, const ModelTokens& tokens,
                                      const RunOptions& options)
{
    try {
        try {
            return runModel(model, tokens, options, true);
        } catch (const PrefixNotReusable&) {
            return runModel(model, tokens, options, false);
        }
    } catch (const BlockReadError& error) {
        return Error{error.message};
    }
}

}  // namespace qkv
