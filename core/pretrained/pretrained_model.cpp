#include "core/pretrained/pretrained_model.hpp"

#include <filesystem>
#include <new>
#include <optional>
#include <vector>

#include "core/common/parallelism.hpp"
#include "core/families/attention_rules.hpp"
#include "core/modelfiles/tensor_reading.hpp"
#include "core/pretrained/checkpoint_recipe.hpp"
#include "core/pretrained/marian_positions.hpp"
#include "core/pretrained/model_memory.hpp"
#include "core/pretrained/tensor_plan.hpp"

namespace qkv {

namespace {

using pretrained_detail::TensorPlan;

// Model order: the encoder's blocks, then each decoder block's self- and cross-attention.
void numberLayers(PretrainedModel& model)
{
    model.layersInModelOrder.clear();
    for (StackWeights* stack : {&model.encoder, &model.decoder})
        for (BlockWeights& block : stack->blocks) {
            block.selfAttention.modelIndex = static_cast<Index>(model.layersInModelOrder.size());
            model.layersInModelOrder.push_back(block.selfAttention.layer);
            if (block.crossAttention) {
                block.crossAttention->modelIndex = static_cast<Index>(model.layersInModelOrder.size());
                model.layersInModelOrder.push_back(block.crossAttention->layer);
            }
        }
}

Expected<EmbeddingWeights> embeddingWeights(const Checkpoint& checkpoint, const FamilyRecipe& recipe, ModelStack stack)
{
    const EmbeddingTensorNames names = embeddingTensorNames(recipe, stack);
    const auto d = static_cast<std::size_t>(recipe.d_model);
    TensorPlan plan(checkpoint, recipe);
    plan.requireTable(names.tokens, static_cast<std::size_t>(recipe.vocabularySize), "V x d_model");
    if (!names.positions.empty()) plan.requireRows(names.positions, d, "positions x d_model");
    if (!names.tokenTypes.empty()) plan.requireRows(names.tokenTypes, d, "token types x d_model");
    if (!names.norm.empty()) plan.requireNorm(names.norm);
    Expected<checkpoint_detail::LoadedTensors> loaded = plan.read();
    if (!loaded) return Error{loaded.error()};
    EmbeddingWeights weights;
    weights.tokens = std::move(loaded->at(names.tokens));
    if (!names.positions.empty()) weights.positions = std::move(loaded->at(names.positions));
    // Marian's table is not stored (save_pretrained leaves it out): computed, P x d_model.
    if (recipe.positions == PretrainedPositions::Sinusoidal)
        weights.positions = marianSinusoidalPositions(recipe.positionCount, recipe.d_model);
    if (!names.tokenTypes.empty()) weights.tokenTypes = std::move(loaded->at(names.tokenTypes));
    if (!names.norm.empty()) weights.norm = plan.norm(*loaded, names.norm);
    return weights;
}

Expected<ReadoutWeights> readoutWeights(const Checkpoint& checkpoint, const FamilyRecipe& recipe,
                                        std::vector<std::string>& notes)
{
    ReadoutWeights weights;
    if (recipe.readout == ReadoutKind::None) return weights;
    const ReadoutTensorNames names = readoutTensorNames(recipe);
    const auto d = static_cast<std::size_t>(recipe.d_model);
    const auto V = static_cast<std::size_t>(recipe.vocabularySize);
    TensorPlan plan(checkpoint, recipe);
    if (!names.transform.empty()) plan.requireLinear(names.transform, d, d, LinearLayout::OutByIn, true);
    if (!names.transformNorm.empty()) plan.requireNorm(names.transformNorm);
    if (!recipe.tiedReadout) plan.requireTable(names.decoder, V, "V x d_model");
    // The bias may be stored twice (cls.predictions.bias and its tied alias decoder.bias).
    std::string bias = names.bias;
    if (!bias.empty() && !checkpoint.tensors.contains(bias) && names.decoder.ends_with(".weight"))
        bias = names.decoder.substr(0, names.decoder.size() - 6) + "bias";
    if (!bias.empty() && checkpoint.tensors.contains(bias)) plan.requireVectorOrRow(bias, V, "V");
    else if (!names.bias.empty()) {
        notes.push_back(checkpoint.path + " has no '" + names.bias + "': the logits have no bias.");
        bias.clear();
    }
    Expected<checkpoint_detail::LoadedTensors> loaded = plan.read();
    if (!loaded) return Error{loaded.error()};
    if (!names.transform.empty()) {
        weights.transform = plan.linear(*loaded, names.transform, LinearLayout::OutByIn);
        weights.transformBias = plan.bias(*loaded, names.transform);
    }
    if (!names.transformNorm.empty()) weights.transformNorm = plan.norm(*loaded, names.transformNorm);
    if (!recipe.tiedReadout) weights.decoder = std::move(loaded->at(names.decoder));
    if (!bias.empty()) weights.bias = checkpoint_detail::asRow(loaded->at(bias));
    return weights;
}

// Whole reads and checks every block at load. OneBlockAtATime reads only each block's description
// (blockDescription: names and shapes from the headers, the norms' values), so opening costs the
// embeddings, the readout and the headers, not a pass over every weight of the file; a block's
// values are read and checked when a run reaches it.
// The blocks read so far and in all, shared by the stacks' loops and their threads.
struct LoadCounter {
    const LoadProgress& progress;
    Index total = 0;
    std::atomic<Index> done{0};

    bool stopped() const { return progress.stop && progress.stop->load(); }
    // Counted and reported under one lock, so the reports come in order (1, 2, ... total).
    void blockRead()
    {
#pragma omp critical(qkv_load_progress)
        {
            const Index now = ++done;
            if (progress.report) progress.report(now, total);
        }
    }
};

constexpr std::string_view kStopped = "stopped before its weights were read";

Expected<StackWeights> stackWeights(const Checkpoint& checkpoint, const FamilyRecipe& recipe, ModelStack stack,
                                    Index blockCount, WeightResidency residency, LoadCounter& counter)
{
    StackWeights weights;
    Expected<EmbeddingWeights> embeddings = embeddingWeights(checkpoint, recipe, stack);
    if (!embeddings) return Error{embeddings.error()};
    weights.embeddings = std::move(*embeddings);
    // Blocks are read and converted independently, on the project's threads (parallelism.hpp):
    // opening is bound by memory (fresh pages, bf16 decoding), which two cores share well.
    std::vector<std::optional<Expected<BlockWeights>>> blocks(static_cast<std::size_t>(blockCount));
    const int threads = blockCount > 1 ? computeThreads() : 1;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (threads > 1)
    for (Index b = 0; b < blockCount; ++b) {
        // Nothing may leave a parallel region: running out of memory becomes this block's error.
        try {
            if (counter.stopped()) {
                blocks[static_cast<std::size_t>(b)].emplace(Error{checkpoint.path + ": " + std::string(kStopped)});
                continue;
            }
            Expected<BlockWeights> block = residency == WeightResidency::OneBlockAtATime
                                               ? blockDescription(checkpoint, recipe, stack, b)
                                               : blockWeights(checkpoint, recipe, stack, b);
            blocks[static_cast<std::size_t>(b)].emplace(std::move(block));
            counter.blockRead();
        } catch (const std::bad_alloc&) {
            blocks[static_cast<std::size_t>(b)].emplace(
                Error{checkpoint.path + ": not enough memory to hold block " + std::to_string(b) + "'s weights"});
        }
    }
    for (std::optional<Expected<BlockWeights>>& block : blocks) {  // the first problem in block order
        if (!*block) return Error{(*block).error()};
        weights.blocks.push_back(std::move(**block));
    }
    if (const std::string final = finalNormName(recipe, stack); !final.empty()) {
        TensorPlan plan(checkpoint, recipe);
        plan.requireNorm(final);
        Expected<checkpoint_detail::LoadedTensors> loaded = plan.read();
        if (!loaded) return Error{loaded.error()};
        weights.finalNorm = plan.norm(*loaded, final);
    }
    return weights;
}

std::string folderOf(const std::string& path)
{
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    return parent.empty() ? std::string(".") : parent.string();
}

// Empty when `tokenizer` fits the model's token table; else why its files are not used.
std::string tokenizerMismatch(const PretrainedModel& model, const SubwordTokenizer& tokenizer)
{
    if (static_cast<Index>(tokenizer.vocabularySize()) <= model.recipe.vocabularySize) return {};
    return model.tokenizerFolder + ": the tokenizer has " + std::to_string(tokenizer.vocabularySize()) +
           " tokens but the model's token table has " + std::to_string(model.recipe.vocabularySize) +
           " rows: the tokenizer files do not belong to this checkpoint, and are not used.";
}

// The tokenizer files beside the checkpoint: one tokenizer, or an encoder-decoder's source and
// target tokenizers (Marian's source.spm and target.spm; BART's one BPE for both).
void attachTokenizer(PretrainedModel& model)
{
    model.tokenizerFolder = folderOf(model.checkpoint.path);
    if (model.checkpoint.fileTokenizer || !model.checkpoint.fileTokenizerProblem.empty()) {  // a GGUF file's own
        model.tokenizerFolder = model.checkpoint.path;
        if (!model.checkpoint.fileTokenizer) {
            model.notes.push_back("The file's tokenizer is not read (" + model.checkpoint.fileTokenizerProblem +
                                  "): the model runs on token ids.");
        } else if (const std::string problem = tokenizerMismatch(model, *model.checkpoint.fileTokenizer); !problem.empty()) {
            model.notes.push_back(problem);
        } else {
            model.tokenizer = model.checkpoint.fileTokenizer;
        }
        return;
    }
    if (!hasSubwordTokenizerFiles(model.tokenizerFolder)) {
        model.notes.push_back("No tokenizer files beside " + model.checkpoint.path + ": the model runs on token ids.");
        return;
    }
    Expected<SourceTargetTokenizers> tokenizers = Error{};
    if (model.recipe.encoderDecoder()) {
        tokenizers = loadSourceTargetTokenizers(model.tokenizerFolder);
    } else if (Expected<SubwordTokenizer> one = loadSubwordTokenizer(model.tokenizerFolder)) {
        tokenizers = SourceTargetTokenizers{*one, *one};
    } else {
        tokenizers = Error{one.error()};
    }
    if (!tokenizers) {
        model.notes.push_back("The tokenizer files are not read (" + tokenizers.error() +
                              "): the model runs on token ids.");
        return;
    }
    for (const SubwordTokenizer* tokenizer : {&tokenizers->source, &tokenizers->target}) {
        if (const std::string problem = tokenizerMismatch(model, *tokenizer); !problem.empty()) {
            model.notes.push_back(problem);
            return;
        }
    }
    model.tokenizer = std::move(tokenizers->source);
    if (model.recipe.encoderDecoder()) model.targetTokenizer = std::move(tokenizers->target);
}

// Whole unless the checkpoint's tensors in float32 (4 bytes each, whatever the file's dtype) would
// take over half the available memory; a caller's explicit choice stands.
WeightResidency chosenResidency(const Checkpoint& checkpoint, WeightResidency asked)
{
    if (asked != WeightResidency::Automatic) return asked;
    std::size_t floats = 0;
    for (const auto& [name, tensor] : checkpoint.tensors) {
        std::size_t count = 1;
        for (const std::size_t extent : tensor.shape) count *= extent;
        floats += count;
    }
    return automaticResidency(floats * sizeof(float), availableMemoryBytes());  // model_memory.hpp: one rule
}

}  // namespace

const MatrixF& PretrainedModel::readoutMatrix() const
{
    if (readout.decoder.size() > 0) return readout.decoder;
    return recipe.encoderDecoder() || recipe.encoderLayerCount == 0 ? decoder.embeddings.tokens
                                                                    : encoder.embeddings.tokens;
}

const AttentionSublayerWeights& PretrainedModel::sublayer(Index modelIndex) const
{
    for (const StackWeights* stack : {&encoder, &decoder})
        for (const BlockWeights& block : stack->blocks) {
            if (block.selfAttention.modelIndex == modelIndex) return block.selfAttention;
            if (block.crossAttention && block.crossAttention->modelIndex == modelIndex) return *block.crossAttention;
        }
    return encoder.blocks.empty() ? decoder.blocks.front().selfAttention : encoder.blocks.front().selfAttention;
}

Index PretrainedModel::modelIndexOf(std::string_view layerName) const
{
    for (std::size_t i = 0; i < layersInModelOrder.size(); ++i)
        if (layersInModelOrder[i].name == layerName) return static_cast<Index>(i);
    return -1;
}

namespace {

// "0, 2 and 4".
std::string blockList(const std::vector<Index>& blocks)
{
    std::string text;
    for (std::size_t i = 0; i < blocks.size(); ++i)
        text += (i == 0 ? "" : i + 1 == blocks.size() ? " and " : ", ") + std::to_string(blocks[i]);
    return text;
}

}  // namespace

std::vector<std::string> blockConventionNotes(const PretrainedModel& model)
{
    const CheckpointConfig& c = model.checkpoint.config;
    const FamilyRecipe& r = model.recipe;
    // The heads' width, which a partial rotary's share is of (the loader checked it is whole).
    const Index d_k = c.headDim.value_or(r.headCount > 0 ? r.d_model / r.headCount : 0);
    const Expected<AttentionConventions> first = layerAttentionConventions(c, 0, d_k);
    std::vector<std::string> notes;
    if (c.slidingWindowNotApplied) notes.push_back(slidingWindowNote(model.checkpoint));
    if (c.slidingWindow && r.causal()) {  // which blocks slide (core/families/attention_rules.hpp)
        std::vector<Index> sliding, global;
        for (Index b = 0; b < r.decoderLayerCount; ++b) {
            const Expected<AttentionConventions> own = layerAttentionConventions(c, b, d_k);
            (own && own->slidingWindow > 0 ? sliding : global).push_back(b);
        }
        const std::string w = std::to_string(*c.slidingWindow);
        if (global.empty())
            notes.push_back(slidingWindowNote(model.checkpoint));
        else if (!sliding.empty())
            notes.push_back(model.checkpoint.configPath + " sets sliding_window = " + w + ": layers " + blockList(sliding) +
                            " slide (each query sees its " + w + " latest keys); layers " + blockList(global) +
                            " are global (every earlier key).");
    }
    // q_norm and k_norm (Qwen3, Gemma 3, OLMo 2), read with each layer (layer_loading.cpp).
    const std::string firstLayer = model.layerCount() > 0 ? model.layersInModelOrder.front().name : std::string();
    if (!firstLayer.empty() && model.checkpoint.tensors.contains(firstLayer + ".q_norm.weight"))
        notes.push_back("Each layer's q_norm.weight and k_norm.weight RMS-normalise q and k before the rotation.");
    if (c.ropeLocalBase && r.positions == PretrainedPositions::Rotary)
        notes.push_back("Sliding layers rotate with rope_local_base_freq = " + std::to_string(static_cast<long long>(*c.ropeLocalBase)) +
                        ", global layers with rope_theta.");
    if (r.normWeightOffset != 0.0f) notes.push_back("Every RMSNorm scales by 1 + w (Gemma stores w zero-centred).");
    if (r.parallelResidual)
        notes.push_back("Attention and MLP run side by side on each block's input (use_parallel_residual): "
                        "h + Attention(LN_1(h)) + MLP(LN_2(h)).");
    if (c.partialRotary && *c.partialRotary < 1.0)
        notes.push_back("Rotary positions turn only a share " + std::to_string(*c.partialRotary).substr(0, 4) +
                        " of each head's components.");
    if (c.queryPreAttnScalar)
        notes.push_back("Scores are scaled by 1/sqrt(" + std::to_string(*c.queryPreAttnScalar) +
                        ") (query_pre_attn_scalar), not by 1/sqrt(d_k).");
    if (first && first->scoreSoftCap > 0)
        notes.push_back("Scores are soft-capped at " + std::to_string(static_cast<long long>(first->scoreSoftCap)) +
                        " (attn_logit_softcapping): the softmax reads c tanh(s / c).");
    if (r.finalLogitSoftCap > 0)
        notes.push_back("Logits are soft-capped at " + std::to_string(static_cast<long long>(r.finalLogitSoftCap)) +
                        " (final_logit_softcapping): c tanh(logit / c).");
    return notes;
}

bool loadStopped(const std::string& error) { return error.ends_with(kStopped); }

Expected<PretrainedModel> loadPretrainedModel(Checkpoint checkpoint, WeightResidency residency,
                                              const LoadProgress& progress)
{
    Expected<FamilyRecipe> recipe = familyRecipe(checkpoint);
    if (!recipe) return Error{recipe.error()};
    PretrainedModel model;
    model.recipe = std::move(*recipe);
    model.checkpoint = std::move(checkpoint);
    model.residency = chosenResidency(model.checkpoint, residency);
    if (model.residency == WeightResidency::OneBlockAtATime)
        model.notes.push_back("The model's weights in float32 would take over half the memory available: they stay in "
                              "the file's precision, and each block is read and converted when a run reaches it (slower, "
                              "runs in little memory; a value that is not finite is reported when its block is reached).");
    const FamilyRecipe& r = model.recipe;
    LoadCounter counter{progress, r.encoderLayerCount + r.decoderLayerCount};
    if (r.encoderLayerCount > 0) {
        Expected<StackWeights> encoder =
            stackWeights(model.checkpoint, r, ModelStack::Encoder, r.encoderLayerCount, model.residency, counter);
        if (!encoder) return Error{encoder.error()};
        model.encoder = std::move(*encoder);
    }
    if (r.decoderLayerCount > 0) {
        Expected<StackWeights> decoder =
            stackWeights(model.checkpoint, r, ModelStack::Decoder, r.decoderLayerCount, model.residency, counter);
        if (!decoder) return Error{decoder.error()};
        model.decoder = std::move(*decoder);
    }
    Expected<ReadoutWeights> readout = readoutWeights(model.checkpoint, r, model.notes);
    if (!readout) return Error{readout.error()};
    model.readout = std::move(*readout);
    numberLayers(model);
    if (r.positions == PretrainedPositions::Rotary)
        if (const std::string note = ropeScalingNote(model.checkpoint); !note.empty()) model.notes.push_back(note);
    for (std::string& note : blockConventionNotes(model)) model.notes.push_back(std::move(note));
    attachTokenizer(model);
    return model;
}

Expected<PretrainedModel> openPretrainedModel(const std::string& path, const CheckpointOptions& options,
                                              WeightResidency residency, const LoadProgress& progress)
{
    Expected<Checkpoint> checkpoint = openCheckpoint(path, options);
    if (!checkpoint) return Error{checkpoint.error()};
    return loadPretrainedModel(std::move(*checkpoint), residency, progress);
}

AttentionOptions modelLayerAttentionOptions(const PretrainedModel& model, ModelStack stack, Index block, Index d_k,
                                            bool cross)
{
    // The loader refused a config.json whose conventions do not hold for some layer.
    const Expected<AttentionConventions> own = layerAttentionConventions(model.checkpoint.config, block, d_k);
    AttentionOptions options;
    // A decoder's self-attention is causal (GPT-2, LLaMA, an encoder-decoder's decoder).
    options.mask.causal = stack == ModelStack::Decoder && !cross;
    const bool rotary = model.recipe.positions == PretrainedPositions::Rotary && !cross;
    if (rotary) options.rotary = RotaryLayout::RotateHalf;
    options.conventions = (own ? *own : AttentionConventions{}).forLayer(options.mask.causal, rotary);
    options.mask.window = options.conventions.slidingWindow;
    return options;
}

namespace {

// Every matrix of a block, handed to `pool` (the block is left without weights).
void recycle(BlockWeights& block, checkpoint_detail::RecycledMatrices& pool)
{
    for (AttentionSublayerWeights* sublayer : {&block.selfAttention, block.crossAttention ? &*block.crossAttention : nullptr}) {
        if (!sublayer) continue;
        AttentionWeights& a = sublayer->attention;
        for (MatrixF* m : {&a.queryProjection, &a.keyProjection, &a.valueProjection, &a.outputProjection})
            pool.give(std::move(*m));
    }
    for (MatrixF* m : {&block.feedForward.in, &block.feedForward.gate, &block.feedForward.out}) pool.give(std::move(*m));
    for (MatrixF& m : block.decodingBuffers) pool.give(std::move(m));
    block.decodingBuffers.clear();
}

}  // namespace

Expected<const BlockWeights*> runBlockWeights(const PretrainedModel& model, const StackWeights& stack, Index b,
                                              std::optional<BlockWeights>& storage)
{
    const BlockWeights& described = stack.blocks[static_cast<std::size_t>(b)];
    if (model.residency != WeightResidency::OneBlockAtATime) return &described;
    // The previous block's matrices become this block's (the same shapes): decoded into memory
    // already touched, and never two blocks in float32 at once.
    checkpoint_detail::RecycledMatrices pool;
    if (storage) recycle(*storage, pool);
    storage.reset();
    Expected<BlockWeights> read = [&] {
        const checkpoint_detail::RecyclingScope scope(pool);
        return blockWeights(model.checkpoint, model.recipe, described.stack, described.block);
    }();
    if (!read) return Error{read.error()};
    // The next block's bytes, read by the system while this block computes: when the page cache
    // cannot hold the whole file beside the process (an 8B model on a 16-24 GB machine), a run
    // would otherwise wait for the disk at every block.
    if (b + 1 < static_cast<Index>(stack.blocks.size()))
        announceBlockReading(model.checkpoint, model.recipe, described.stack, described.block + 1);
    storage = std::move(*read);
    storage->decodingBuffers = pool.takeAll();
    // Its place in model order, which only the loaded model knows.
    storage->selfAttention.modelIndex = described.selfAttention.modelIndex;
    if (storage->crossAttention && described.crossAttention)
        storage->crossAttention->modelIndex = described.crossAttention->modelIndex;
    return &*storage;
}

Expected<std::shared_ptr<const AttentionWeights>> sublayerAttention(const std::shared_ptr<const PretrainedModel>& model,
                                                                     Index modelIndex)
{
    const AttentionSublayerWeights& sublayer = model->sublayer(modelIndex);
    if (model->residency != WeightResidency::OneBlockAtATime)
        return std::shared_ptr<const AttentionWeights>(model, &sublayer.attention);  // shares the model
    for (const StackWeights* stack : {&model->encoder, &model->decoder})
        for (const BlockWeights& block : stack->blocks) {
            const bool self = block.selfAttention.modelIndex == modelIndex;
            const bool cross = block.crossAttention && block.crossAttention->modelIndex == modelIndex;
            if (!self && !cross) continue;
            // The attention's tensors only (not the block's MLP): the layer loader's conversion.
            Expected<CheckpointLayerWeights> read =
                loadCheckpointLayer(model->checkpoint, self ? block.selfAttention.layer : block.crossAttention->layer);
            if (!read) return Error{read.error()};
            return std::make_shared<const AttentionWeights>(std::move(read->weights));
        }
    return Error{"no attention layer " + std::to_string(modelIndex) + " in the model"};
}

}  // namespace qkv
