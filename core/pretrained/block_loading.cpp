// One block's weights: its attention sublayers through the checkpoint's own layer loader
// (loadCheckpointLayer: the same conversion to our layout as a single loaded layer), its norms
// and its MLP through a TensorPlan. Only the block's tensors are read.

#include <algorithm>
#include <vector>

#include "core/modelfiles/tensor_reading.hpp"

#include "core/pretrained/pretrained_model.hpp"
#include "core/pretrained/tensor_plan.hpp"

namespace qkv {

namespace {

using pretrained_detail::TensorPlan;

Expected<AttentionSublayerWeights> attentionSublayer(const Checkpoint& checkpoint, const FamilyRecipe& recipe,
                                                     const std::string& module)
{
    const auto found = std::find_if(checkpoint.layers.begin(), checkpoint.layers.end(),
                                    [&](const CheckpointLayer& layer) { return layer.name == module; });
    if (found == checkpoint.layers.end())
        return Error{checkpoint.path + ": the " + std::string(familyName(recipe.family)) +
                     " model has no attention layer '" + module + "' (its query weight is missing)"};
    Expected<CheckpointLayerWeights> loaded = loadCheckpointLayer(checkpoint, *found);
    if (!loaded) return Error{loaded.error()};
    if (loaded->weights.d_model() != recipe.d_model)
        return Error{checkpoint.path + ": layer '" + module +
                     "' has d_model = " + std::to_string(loaded->weights.d_model()) +
                     " but the token embeddings have " + std::to_string(recipe.d_model)};
    AttentionSublayerWeights sublayer;
    sublayer.layer = loaded->layer;
    sublayer.attention = std::move(loaded->weights);
    return sublayer;
}

// The attention layer the checkpoint lists under `module` (no tensor read).
Expected<CheckpointLayer> listedLayer(const Checkpoint& checkpoint, const FamilyRecipe& recipe, const std::string& module)
{
    const auto found = std::find_if(checkpoint.layers.begin(), checkpoint.layers.end(),
                                    [&](const CheckpointLayer& layer) { return layer.name == module; });
    if (found == checkpoint.layers.end())
        return Error{checkpoint.path + ": the " + std::string(familyName(recipe.family)) + " model has no attention layer '" +
                     module + "' (its query weight is missing)"};
    return *found;
}

// The block's norms, and with `feedForward` its MLP's linear modules, into `plan`.
void requireNormsAndFeedForward(TensorPlan& plan, const BlockTensorNames& names, const FamilyRecipe& recipe,
                                ModelStack stack, bool feedForward)
{
    for (const std::string* norm : {&names.attentionNorm, &names.attentionOutputNorm, &names.crossAttentionNorm,
                                    &names.feedForwardNorm, &names.feedForwardOutputNorm})
        if (!norm->empty()) plan.requireNorm(*norm);
    if (!feedForward) return;
    const auto d = static_cast<std::size_t>(recipe.d_model);
    const auto d_ff = static_cast<std::size_t>(recipe.feedForwardWidth(stack));
    if (!names.feedForwardGateUp.empty()) {  // Phi-3: gate's d_ff rows, then up's, in one nn.Linear
        plan.requireLinear(names.feedForwardGateUp, d, 2 * d_ff, recipe.linearLayout, false);
    } else {
        plan.requireLinear(names.feedForwardIn, d, d_ff, recipe.linearLayout);
        if (!names.feedForwardGate.empty()) plan.requireLinear(names.feedForwardGate, d, d_ff, recipe.linearLayout);
    }
    plan.requireLinear(names.feedForwardOut, d_ff, d, recipe.linearLayout);
}

// The norms of a block, read from `loaded` into `weights`.
void takeNorms(const TensorPlan& plan, checkpoint_detail::LoadedTensors& loaded, const BlockTensorNames& names,
               BlockWeights& weights)
{
    const auto normOrNone = [&](const std::string& module) {
        return module.empty() ? NormWeights{} : plan.norm(loaded, module);
    };
    weights.selfAttention.norm = normOrNone(names.attentionNorm);
    weights.selfAttention.outputNorm = normOrNone(names.attentionOutputNorm);
    if (weights.crossAttention) weights.crossAttention->norm = plan.norm(loaded, names.crossAttentionNorm);
    weights.feedForwardNorm = normOrNone(names.feedForwardNorm);
    weights.feedForwardOutputNorm = normOrNone(names.feedForwardOutputNorm);
}

// Block `block` of `stack` with its attention sublayers as `sublayer(module)` gives them: the
// self-attention's, and the cross-attention's where the block has one. The rest left empty.
template <typename Sublayer>
Expected<BlockWeights> withAttentionSublayers(const BlockTensorNames& names, ModelStack stack, Index block,
                                              const Sublayer& sublayer)
{
    BlockWeights weights;
    weights.stack = stack;
    weights.block = block;
    Expected<AttentionSublayerWeights> self = sublayer(names.attention);
    if (!self) return Error{self.error()};
    weights.selfAttention = std::move(*self);
    if (!names.crossAttention.empty()) {
        Expected<AttentionSublayerWeights> cross = sublayer(names.crossAttention);
        if (!cross) return Error{cross.error()};
        weights.crossAttention = std::move(*cross);
    }
    return weights;
}

}  // namespace

void announceBlockReading(const Checkpoint& checkpoint, const FamilyRecipe& recipe, ModelStack stack, Index block)
{
    const BlockTensorNames names = blockTensorNames(recipe, stack, block);
    std::vector<std::string> modules{names.feedForwardIn, names.feedForwardGate, names.feedForwardGateUp,
                                     names.feedForwardOut};
    std::vector<std::string> prefixes;
    for (const std::string* layer : {&names.attention, &names.crossAttention})
        if (!layer->empty()) prefixes.push_back(*layer + ".");
    for (const std::string& module : modules)
        if (!module.empty()) prefixes.push_back(module + ".");
    checkpoint_detail::announceReading(checkpoint.tensors, prefixes);
}

Expected<BlockWeights> blockDescription(const Checkpoint& checkpoint, const FamilyRecipe& recipe, ModelStack stack,
                                        Index block)
{
    const BlockTensorNames names = blockTensorNames(recipe, stack, block);
    // The attention sublayers as the checkpoint lists them, without their weights.
    Expected<BlockWeights> described =
        withAttentionSublayers(names, stack, block, [&](const std::string& module) -> Expected<AttentionSublayerWeights> {
            Expected<CheckpointLayer> layer = listedLayer(checkpoint, recipe, module);
            if (!layer) return Error{layer.error()};
            AttentionSublayerWeights sublayer;
            sublayer.layer = std::move(*layer);
            return sublayer;
        });
    if (!described) return described;
    BlockWeights& weights = *described;
    // The MLP's names and shapes from the headers; of the values, only the norms' (2 d_model each).
    TensorPlan shapes(checkpoint, recipe);
    requireNormsAndFeedForward(shapes, names, recipe, stack, true);
    if (Status checked = shapes.check(); !checked) return Error{checked.error()};
    TensorPlan norms(checkpoint, recipe);
    requireNormsAndFeedForward(norms, names, recipe, stack, false);
    Expected<checkpoint_detail::LoadedTensors> loaded = norms.read();
    if (!loaded) return Error{loaded.error()};
    takeNorms(norms, *loaded, names, weights);
    return described;
}

Expected<BlockWeights> blockWeights(const Checkpoint& checkpoint, const FamilyRecipe& recipe, ModelStack stack,
                                    Index block)
{
    const BlockTensorNames names = blockTensorNames(recipe, stack, block);
    // 1. The attention sublayers (the layer loader checks and reads their tensors).
    Expected<BlockWeights> read = withAttentionSublayers(
        names, stack, block, [&](const std::string& module) { return attentionSublayer(checkpoint, recipe, module); });
    if (!read) return read;
    BlockWeights& weights = *read;
    // 2. Norms and MLP: names and shapes first, then only their bytes.
    const auto d_ff = static_cast<std::size_t>(recipe.feedForwardWidth(stack));
    TensorPlan plan(checkpoint, recipe);
    requireNormsAndFeedForward(plan, names, recipe, stack, true);
    Expected<checkpoint_detail::LoadedTensors> loaded = plan.read();
    if (!loaded) return Error{loaded.error()};
    // 3. Our layout.
    takeNorms(plan, *loaded, names, weights);
    FeedForwardWeights& ff = weights.feedForward;
    if (!names.feedForwardGateUp.empty()) {
        const MatrixF gateUp = plan.linear(*loaded, names.feedForwardGateUp, recipe.linearLayout);  // d_model x 2 d_ff
        const auto width = static_cast<Index>(d_ff);
        ff.gate = gateUp.leftCols(width);
        ff.in = gateUp.rightCols(width);
    } else {
        ff.in = plan.linear(*loaded, names.feedForwardIn, recipe.linearLayout);
        ff.inBias = plan.bias(*loaded, names.feedForwardIn);
        if (!names.feedForwardGate.empty()) ff.gate = plan.linear(*loaded, names.feedForwardGate, recipe.linearLayout);
    }
    ff.out = plan.linear(*loaded, names.feedForwardOut, recipe.linearLayout);
    ff.outBias = plan.bias(*loaded, names.feedForwardOut);
    return read;  // moved: a block of an 8B model is 0.9 GB
}

}  // namespace qkv
