#include "core/pretrained/model_memory.hpp"

#include <algorithm>
#include <fstream>
#include <string>

#include "core/common/limits.hpp"
#include "core/families/family_tensors.hpp"
#include "core/pretrained/checkpoint_recipe.hpp"

namespace qkv {

namespace {

constexpr std::size_t kFloat = sizeof(float);
// Code and libraries (no Qt in the command-line export's model path), the heap's bookkeeping,
// Eigen's GEMM blocks and OpenMP's stacks: 8 MiB measured for qkv_pretrained_bench before it
// opens a model, plus room.
constexpr std::size_t kProgramBytes = std::size_t{12} << 20;

std::size_t count(Index value) { return static_cast<std::size_t>(std::max<Index>(value, 0)); }

// ---- Weights, counted ---------------------------------------------------------------------------

std::size_t floats(const NormWeights& norm) { return count(norm.gamma.size()) + count(norm.beta.size()); }

std::size_t floats(const AttentionWeights& w)
{
    std::size_t n = count(w.queryProjection.size()) + count(w.keyProjection.size()) +
                    count(w.valueProjection.size()) + count(w.outputProjection.size());
    for (const auto* bias : {&w.queryBias, &w.keyBias, &w.valueBias, &w.outputBias})
        if (*bias) n += count((*bias)->size());
    return n;
}

std::size_t floats(const AttentionSublayerWeights& sublayer)
{
    return floats(sublayer.attention) + floats(sublayer.norm) + floats(sublayer.outputNorm);
}

std::size_t floats(const StackWeights& stack)
{
    const EmbeddingWeights& e = stack.embeddings;
    std::size_t n = count(e.tokens.size()) + count(e.positions.size()) + count(e.tokenTypes.size()) + floats(e.norm) +
                    floats(stack.finalNorm);
    for (const BlockWeights& block : stack.blocks) {
        const FeedForwardWeights& f = block.feedForward;
        n += floats(block.selfAttention) + (block.crossAttention ? floats(*block.crossAttention) : 0) +
             count(f.in.size()) + count(f.inBias.size()) + count(f.gate.size()) + count(f.out.size()) +
             count(f.outBias.size()) + floats(block.feedForwardNorm) + floats(block.feedForwardOutputNorm);
    }
    return n;
}

// ---- One run, by formula ------------------------------------------------------------------------

// Sizes the formulas read.
struct Shape {
    std::size_t d, V;
    bool rotary, keepScores;
    bool keepWeights = true;
    std::size_t pooledBlocks = 0;  // RunOptions::pooledBlocks: 0 for full maps
    bool pooledValueNorms = false;
};

// One LayerRun (the legend's "layers" term); h and kv are the layer's own (BART's decoder may
// have fewer heads than its encoder).
std::size_t layerFloats(const Shape& s, const AttentionSublayerWeights& sublayer, std::size_t nq, std::size_t nk)
{
    const std::size_t h = count(sublayer.layer.headCount), kv = count(sublayer.attention.keyProjection.cols());
    // Streamed: per head the pooled means and maxima in float (twice with value norms), four row
    // statistics in double and its softmax constants (a float and a double per row).
    const std::size_t r = std::min(nq, s.pooledBlocks), c = std::min(nk, s.pooledBlocks);
    const std::size_t maps = s.pooledBlocks > 0 ? h * ((s.pooledValueNorms ? 4 : 2) * r * c + 11 * nq) +
                                                      (s.pooledValueNorms ? 2 * nk * h : 0)
                                                : ((s.keepScores ? 1 : 0) + (s.keepWeights ? 1 : 0)) * h * nq * nk;
    return (nq + nk) * s.d + nq * s.d + 2 * nk * kv + (s.rotary ? nq * s.d + nk * kv : 0) + maps + 2 * nq * s.d;
}

// The stop's block and stack: the layers run in each stack, and whether each ran whole.
struct StackReach {
    std::size_t layerFloats = 0;   // the LayerRuns of the stack's layers run
    std::size_t hiddenStates = 1;  // h_0..h_b, or L + 1
};

// A stack run on n tokens (a decoder's cross-attention reads the encoder's nk), up to lastLayer.
StackReach reach(const Shape& s, const StackWeights& stack, Index lastLayer, std::size_t n, std::size_t nk)
{
    StackReach r;
    for (const BlockWeights& block : stack.blocks) {
        r.layerFloats += layerFloats(s, block.selfAttention, n, n);
        if (block.selfAttention.modelIndex == lastLayer) return r;
        if (block.crossAttention) {
            r.layerFloats += layerFloats(s, *block.crossAttention, n, nk);
            if (block.crossAttention->modelIndex == lastLayer) return r;
        }
        ++r.hiddenStates;
    }
    return r;
}

}  // namespace

std::size_t modelWeightBytes(const PretrainedModel& model)
{
    const ReadoutWeights& r = model.readout;
    const std::size_t decoder = model.recipe.encoderDecoder() || model.recipe.encoderLayerCount == 0
                                    ? floats(model.decoder)
                                    : 0;
    return kFloat * (floats(model.encoder) * (model.recipe.encoderLayerCount > 0 ? 1 : 0) + decoder +
                     count(r.transform.size()) + count(r.transformBias.size()) + floats(r.transformNorm) +
                     count(r.decoder.size()) + count(r.bias.size()));
}

ModelMemoryEstimate estimateModelRunMemory(const PretrainedModel& model, const ModelTokens& tokens,
                                           const RunOptions& options)
{
    const FamilyRecipe& rc = model.recipe;
    const std::size_t d = count(rc.d_model);
    const Shape s{d,
                  count(rc.vocabularySize),
                  rc.positions == PretrainedPositions::Rotary,
                  options.keepScores,
                  options.keepWeights,
                  count(options.pooledBlocks),
                  options.pooledValueNorms};
    const std::size_t n = tokens.ids.size(), m = tokens.decoderIds.size();
    ModelMemoryEstimate e;
    e.program = kProgramBytes;
    e.weights = modelWeightBytes(model);

    const bool hasEncoder = rc.encoderLayerCount > 0;
    const StackWeights& first = hasEncoder ? model.encoder : model.decoder;
    const StackReach one = reach(s, first, options.lastLayer, n, n);
    const bool firstWhole = one.hiddenStates == first.blocks.size() + 1;
    std::size_t layers = one.layerFloats;
    std::size_t hidden = one.hiddenStates * n * d;
    std::size_t readRows = n;  // rows of the sequence the readout reads
    bool whole = firstWhole;
    std::size_t widestMlp = count(rc.feedForwardWidth(hasEncoder ? ModelStack::Encoder : ModelStack::Decoder));
    std::size_t mlpRows = n;
    if (rc.encoderDecoder() && firstWhole) {
        const StackReach two = reach(s, model.decoder, options.lastLayer, m, n);
        layers += two.layerFloats;
        hidden += two.hiddenStates * m * d;
        whole = two.hiddenStates == model.decoder.blocks.size() + 1;
        readRows = m;
        if (m * count(rc.feedForwardWidth(ModelStack::Decoder)) > n * widestMlp)
            widestMlp = count(rc.feedForwardWidth(ModelStack::Decoder)), mlpRows = m;
    }
    const bool readout = whole && model.hasReadout() && options.logitRows != LogitRows::None;
    const std::size_t k = !readout                                  ? 0
                          : options.logitRows == LogitRows::Chosen ? options.logitPositions.size()
                                                                    : readRows;
    e.layers = kFloat * layers;
    e.hiddenStates = kFloat * hidden;
    e.logits = kFloat * k * s.V;

    // A block's MLP: h, x, the hidden (and a gated MLP's gate), the output.
    const std::size_t gate = rc.gatedFeedForward ? 1 : 0;
    const std::size_t mlp = 3 * mlpRows * d + (1 + gate) * mlpRows * widestMlp;
    // The readout: t (and a masked LM's transform before its norm), and for chosen rows the
    // gathered rows and their product, padded to groups of 4 (at most k + 7 rows).
    std::size_t readoutScratch = 0;
    if (readout) {
        readoutScratch = (rc.readout == ReadoutKind::MaskedLm ? 2 : 1) * readRows * d;
        if (options.logitRows == LogitRows::Chosen && k > 0) readoutScratch += (k + 7) * (d + s.V);
    }
    e.scratch = kFloat * std::max(mlp, readoutScratch);
    return e;
}

std::size_t modelRunBytes(const ModelMemoryEstimate& estimate)
{
    return estimate.peak() - estimate.weights - estimate.program;
}

bool modelRunFits(const PretrainedModel& model, const ModelTokens& tokens, const RunOptions& options)
{
    return modelRunBytes(estimateModelRunMemory(model, tokens, options)) <= limits::maxModelRunBytes;
}

// ---- Before loading ------------------------------------------------------------------------------

namespace {

std::size_t storedFloats(const CheckpointTensor& tensor)
{
    std::size_t n = 1;
    for (const std::size_t extent : tensor.shape) n *= extent;
    return n;
}

// The values of every tensor of `module` (module + ".weight", ".bias", its children) or named
// exactly so; an empty module has none.
std::size_t floatsUnder(const CheckpointTensors& tensors, const std::string& module)
{
    if (module.empty()) return 0;
    std::size_t n = 0;
    if (const auto exact = tensors.find(module); exact != tensors.end()) n += storedFloats(exact->second);
    const std::string children = module + ".";
    for (auto it = tensors.lower_bound(children); it != tensors.end() && it->first.starts_with(children); ++it)
        n += storedFloats(it->second);
    return n;
}

// One block's stored values, by the family's names for its parts.
std::size_t blockFloats(const CheckpointTensors& tensors, const FamilyRecipe& recipe, ModelStack stack, Index block)
{
    const BlockTensorNames names = blockTensorNames(recipe, stack, block);
    std::size_t n = 0;
    for (const std::string* module :
         {&names.attention, &names.attentionNorm, &names.attentionOutputNorm, &names.crossAttention,
          &names.crossAttentionNorm, &names.feedForwardIn, &names.feedForwardGate, &names.feedForwardGateUp,
          &names.feedForwardOut, &names.feedForwardNorm, &names.feedForwardOutputNorm})
        n += floatsUnder(tensors, *module);
    return n;
}

// The run of n tokens through every layer of a stack of L blocks (the legend of
// estimateModelRunMemory with d_k = d / h): its layers, hidden states and MLP scratch.
std::size_t stackRunFloats(const FamilyRecipe& recipe, ModelStack stack, Index layers, std::size_t n)
{
    const std::size_t d = count(recipe.d_model), h = std::max<std::size_t>(count(recipe.headCount), 1);
    const std::size_t kv = count(recipe.keyValueHeadCount) * (d / h);
    const bool rotary = recipe.positions == PretrainedPositions::Rotary;
    const std::size_t layer = 2 * n * d + n * d + 2 * n * kv + (rotary ? n * d + n * kv : 0) + 2 * h * n * n + 2 * n * d;
    const std::size_t mlp = 3 * n * d + (recipe.gatedFeedForward ? 2 : 1) * n * count(recipe.feedForwardWidth(stack));
    return count(layers) * layer + (count(layers) + 1) * n * d + mlp;
}

}  // namespace

std::size_t availableMemoryBytes()
{
    std::ifstream meminfo("/proc/meminfo");
    std::string key, unit;
    std::size_t kibibytes = 0;
    while (meminfo >> key >> kibibytes >> unit)
        if (key == "MemAvailable:") return kibibytes * 1024;
    return 0;
}

WeightResidency automaticResidency(std::size_t float32WeightBytes, std::size_t availableBytes)
{
    return availableBytes > 0 && float32WeightBytes > availableBytes / 2 ? WeightResidency::OneBlockAtATime
                                                                         : WeightResidency::Whole;
}

ModelLoadMemory estimateModelLoadMemory(const Checkpoint& checkpoint, std::size_t availableBytes)
{
    std::size_t total = 0;  // every stored tensor's values
    for (const auto& [name, tensor] : checkpoint.tensors) total += storedFloats(tensor);
    std::size_t blocks = 0, largestBlock = 0, run = 0;
    if (const Expected<FamilyRecipe> recipe = familyRecipe(checkpoint)) {
        for (const ModelStack stack : {ModelStack::Encoder, ModelStack::Decoder}) {
            const Index layers = stack == ModelStack::Encoder ? recipe->encoderLayerCount : recipe->decoderLayerCount;
            for (Index b = 0; b < layers; ++b) {
                const std::size_t floats = blockFloats(checkpoint.tensors, *recipe, stack, b);
                blocks += floats;
                largestBlock = std::max(largestBlock, floats);
            }
            if (layers > 0) run += stackRunFloats(*recipe, stack, layers, kLoadEstimateTokens);
        }
        if (recipe->readout != ReadoutKind::None) run += kLoadEstimateTokens * count(recipe->vocabularySize);  // logits
    }
    ModelLoadMemory estimate;
    estimate.availableBytes = availableBytes;
    estimate.wholeBytes = kProgramBytes + kFloat * (total + run);
    const std::size_t outside = total - std::min(blocks, total);  // tables, readout, final norm
    estimate.oneBlockBytes = blocks == 0 ? estimate.wholeBytes : kProgramBytes + kFloat * (outside + largestBlock + run);
    estimate.residency = automaticResidency(kFloat * total, availableBytes);
    return estimate;
}

}  // namespace qkv
