// A trained model as a PretrainedModel (trained_model_recipe.hpp): its recipe, its weights in the
// whole model's layout, its vocabulary as a word-level tokenizer and its layers' names.

#include "core/pretrained/trained_model_recipe.hpp"

#include <cmath>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "core/text/tokenizer_json/fast_tokenizer.hpp"
#include "core/trainable/model_steps.hpp"
#include "core/training/trained_model.hpp"

namespace qkv {

namespace {

// The path messages name ("token 3 of the target has id 40, but <path> has 27 tokens").
constexpr const char* kTrainedModelPath = "the trained model";

// Where a marked token stands around the words.
enum class Mark { None, BosBefore, EosAfter };

// The vocabulary as a tokenizer.json: WordLevel over whitespace-split words, the three special
// tokens as added tokens, and the mark a side of the model reads (TemplateProcessing).
Expected<SubwordTokenizer> wordTokenizer(const Vocabulary& vocabulary, Mark mark)
{
    nlohmann::json vocab = nlohmann::json::object();
    for (std::int32_t id = 0; id < vocabulary.size(); ++id) vocab[vocabulary.token(id)] = id;
    nlohmann::json added = nlohmann::json::array();
    for (const std::int32_t id : {Vocabulary::pad, Vocabulary::bos, Vocabulary::eos})
        added.push_back({{"id", id}, {"content", vocabulary.token(id)}, {"special", true}, {"single_word", false},
                         {"lstrip", false}, {"rstrip", false}, {"normalized", false}});
    nlohmann::json file = {{"added_tokens", added},
                           {"normalizer", nullptr},
                           {"pre_tokenizer", {{"type", "WhitespaceSplit"}}},
                           {"model", {{"type", "WordLevel"}, {"vocab", vocab}}},
                           {"post_processor", nullptr},
                           {"decoder", nullptr}};
    if (mark != Mark::None) {
        const std::int32_t id = mark == Mark::BosBefore ? Vocabulary::bos : Vocabulary::eos;
        const std::string& token = vocabulary.token(id);
        const nlohmann::json special = {{"SpecialToken", {{"id", token}, {"type_id", 0}}}};
        const nlohmann::json sequence = {{"Sequence", {{"id", "A"}, {"type_id", 0}}}};
        file["post_processor"] = {
            {"type", "TemplateProcessing"},
            {"single", mark == Mark::BosBefore ? nlohmann::json::array({special, sequence})
                                               : nlohmann::json::array({sequence, special})},
            {"pair", nlohmann::json::array({sequence})},
            {"special_tokens", {{token, {{"id", token}, {"ids", {id}}, {"tokens", {token}}}}}}};
    }
    Expected<FastTokenizer> fast = FastTokenizer::parse(file.dump(), "");
    if (!fast) return Error{std::string(kTrainedModelPath) + "'s words: " + fast.error()};
    SubwordTokenizer tokenizer(std::move(*fast));
    tokenizer.setDescription("the trained model's words: " + std::to_string(vocabulary.size()) +
                             " tokens, split at spaces" +
                             (mark == Mark::BosBefore ? ", <bos> first" : mark == Mark::EosAfter ? ", <eos> last" : ""));
    return tokenizer;
}

MatrixF tensorOf(const ModelParameters<float>& parameters, const std::string& name)
{
    return parameters.tensor(name);
}

NormWeights normOf(const ModelParameters<float>& parameters, const std::string& prefix)
{
    if (!parameters.find(prefix + ".gamma")) return {};  // NormKind::None, or no final norm (post-norm)
    return {tensorOf(parameters, prefix + ".gamma"), tensorOf(parameters, prefix + ".beta")};
}

AttentionSublayerWeights sublayerOf(const ModelParameters<float>& parameters, const CheckpointLayer& layer,
                                    const std::string& normName)
{
    AttentionSublayerWeights sublayer;
    sublayer.layer = layer;
    sublayer.modelIndex = layer.index;
    // The trained layer's own weights, as every one-layer view shows them (a full W_i head as
    // W_i^Q = W_i, W_i^K = I).
    sublayer.attention = *attentionLayerWeights(parameters, layer.index);
    sublayer.norm = normOf(parameters, normName);
    return sublayer;
}

// The stack's blocks: layers[first..] in model order, `count` blocks.
StackWeights stackOf(const ModelParameters<float>& parameters, const std::vector<CheckpointLayer>& layers,
                     ModelStack stack, Index count, std::size_t& next)
{
    const ModelSpec& spec = parameters.spec;
    const bool decoder = stack == ModelStack::Decoder;
    const std::string name = decoder ? "decoder" : "encoder";
    StackWeights weights;
    weights.embeddings.tokens = tensorOf(parameters, "embedding.token");  // V x d_model
    if (spec.positions == PositionKind::Learned)
        weights.embeddings.positions = tensorOf(parameters, "embedding.position");  // P x d_model
    else
        weights.embeddings.positions = sinusoidalPositions<float>(spec.maxPositions, spec.d_model);
    for (Index b = 0; b < count; ++b) {
        const std::string prefix = name + "." + std::to_string(b);
        BlockWeights block;
        block.stack = stack;
        block.block = b;
        block.selfAttention = sublayerOf(parameters, layers[next++], prefix + (decoder ? ".norm_self" : ".norm_attention"));
        if (decoder && spec.hasEncoder())
            block.crossAttention = sublayerOf(parameters, layers[next++], prefix + ".norm_cross");
        if (spec.d_ff > 0) {
            block.feedForward.in = tensorOf(parameters, prefix + ".mlp.W_in");      // d_model x d_ff
            block.feedForward.inBias = tensorOf(parameters, prefix + ".mlp.b_in");  // 1 x d_ff
            block.feedForward.out = tensorOf(parameters, prefix + ".mlp.W_out");    // d_ff x d_model
            block.feedForward.outBias = tensorOf(parameters, prefix + ".mlp.b_out");
            block.feedForwardNorm = normOf(parameters, prefix + ".norm_mlp");
        }
        weights.blocks.push_back(std::move(block));
    }
    weights.finalNorm = normOf(parameters, name + ".norm_final");
    return weights;
}

}  // namespace

FamilyRecipe trainedModelRecipe(const ModelSpec& spec)
{
    FamilyRecipe r;
    r.family = Family::Trained;
    r.d_model = spec.d_model;
    r.encoderLayerCount = spec.encoderLayers;
    r.decoderLayerCount = spec.decoderLayers;
    r.headCount = spec.headCount;
    r.keyValueHeadCount = spec.headCount;
    r.d_ff = spec.d_ff;
    r.vocabularySize = spec.vocabularySize;
    r.positionCount = spec.maxPositions;
    r.norm = spec.norm == NormKind::None ? PretrainedNorm::None : PretrainedNorm::LayerNorm;
    r.placement = spec.placement;
    r.epsilon = spec.normEpsilon;
    r.activation = spec.activation == Activation::Relu ? BlockActivation::Relu : BlockActivation::GeluErf;
    r.positions = spec.positions == PositionKind::Learned ? PretrainedPositions::Learned : PretrainedPositions::Sinusoidal;
    r.embeddingScale = spec.scaleEmbedding ? std::sqrt(static_cast<float>(spec.d_model)) : 1.0f;
    r.decoderStartTokenId = spec.hasEncoder() ? Vocabulary::bos : -1;
    r.finalNorm = spec.norm != NormKind::None && spec.placement == NormPlacement::Pre;
    r.readout = ReadoutKind::CausalLm;
    r.tiedReadout = false;
    return r;
}

Expected<PretrainedModel> pretrainedModelOf(const TrainedModel& trained)
{
    const ModelParameters<float>& parameters = trained.parameters;
    const ModelSpec& spec = parameters.spec;
    if (const std::string problem = spec.problem(); !problem.empty())
        return Error{std::string(kTrainedModelPath) + " does not fit together: " + problem};
    const std::vector<TensorSlot> layout = tensorLayout(spec);
    if (layout.empty() || parameters.values.size() != layout.back().offset + layout.back().size())
        return Error{std::string(kTrainedModelPath) + "'s parameters do not fit its description"};
    if (trained.vocabulary.size() != spec.vocabularySize)
        return Error{std::string(kTrainedModelPath) + " has " + std::to_string(trained.vocabulary.size()) +
                     " words for " + std::to_string(spec.vocabularySize) + " rows of its token table"};

    PretrainedModel model;
    model.recipe = trainedModelRecipe(spec);
    model.checkpoint.path = kTrainedModelPath;
    model.checkpoint.headCountFromConfig = true;
    // A full W_i head keeps the scale it was trained with, 1/sqrt(d_model / h), while it is shown
    // with d_k = d_model (attention_rules.hpp reads this as the layer's scoreDim).
    if (spec.scoreForm == ScoreForm::Full) model.checkpoint.config.queryPreAttnScalar = spec.d_k();
    const std::vector<AttentionLayerInfo> infos = attentionLayers(spec);
    for (std::size_t i = 0; i < infos.size(); ++i) {
        CheckpointLayer layer;
        layer.index = static_cast<Index>(i);
        layer.name = infos[i].name;
        layer.family = Family::Trained;
        layer.kind = infos[i].kind;
        layer.headCount = layer.keyValueHeadCount = spec.headCount;
        layer.d_model = spec.d_model;
        model.checkpoint.layers.push_back(layer);
    }
    model.layersInModelOrder = model.checkpoint.layers;
    std::size_t next = 0;
    if (spec.hasEncoder())
        model.encoder = stackOf(parameters, model.layersInModelOrder, ModelStack::Encoder, spec.encoderLayers, next);
    model.decoder = stackOf(parameters, model.layersInModelOrder, ModelStack::Decoder, spec.decoderLayers, next);
    model.readout.decoder = tensorOf(parameters, "readout.W").transpose();  // V x d_model
    model.readout.bias = tensorOf(parameters, "readout.b");                 // 1 x V

    Expected<SubwordTokenizer> sequence =
        wordTokenizer(trained.vocabulary, spec.hasEncoder() ? Mark::None : Mark::BosBefore);
    if (!sequence) return Error{sequence.error()};
    model.tokenizer = std::move(*sequence);
    if (spec.hasEncoder()) {
        Expected<SubwordTokenizer> target = wordTokenizer(trained.vocabulary, Mark::EosAfter);
        if (!target) return Error{target.error()};
        model.targetTokenizer = std::move(*target);
    }
    model.notes.push_back(trained.provenance());
    model.residency = WeightResidency::Whole;
    return model;
}

std::shared_ptr<const PretrainedModel> wholeTrainedModel(const std::shared_ptr<const TrainedModel>& trained)
{
    // One entry, held weakly: a document shows one trained model at a time, and the converted
    // copy lives as long as a Result (or a view's run) holds it, not longer.
    static std::mutex mutex;
    static std::weak_ptr<const TrainedModel> key;
    static std::weak_ptr<const PretrainedModel> cached;
    if (!trained) return nullptr;
    const auto lookUp = [&trained]() -> std::shared_ptr<const PretrainedModel> {
        const bool same = !key.expired() && !key.owner_before(trained) && !trained.owner_before(key);
        return same ? cached.lock() : nullptr;
    };
    {
        std::lock_guard lock(mutex);
        if (std::shared_ptr<const PretrainedModel> model = lookUp()) return model;
    }
    Expected<PretrainedModel> converted = pretrainedModelOf(*trained);
    if (!converted) return nullptr;
    auto model = std::make_shared<const PretrainedModel>(std::move(*converted));
    std::lock_guard lock(mutex);
    if (std::shared_ptr<const PretrainedModel> other = lookUp()) return other;  // converted meanwhile: keep one
    key = trained;
    cached = model;
    return model;
}

}  // namespace qkv
