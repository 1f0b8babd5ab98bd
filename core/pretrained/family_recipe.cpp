#include "core/pretrained/family_recipe.hpp"

#include <set>
#include <string>

#include "core/pretrained/family_tensors.hpp"

namespace qkv {

namespace {

// The prefix of a layer name that ends with `tail` followed by a block number and `after`
// ("bert." of "bert.encoder.layer.0.attention" with tail "encoder.layer." and after
// ".attention"); false when the name is not of that form.
bool splitBlockName(std::string_view name, std::string_view tail, std::string_view after, std::string& prefix,
                    Index& block)
{
    if (!name.ends_with(after)) return false;
    name.remove_suffix(after.size());
    const std::size_t digits = name.find_last_not_of("0123456789");
    if (digits == std::string_view::npos || digits + 1 == name.size()) return false;
    const std::string_view head = name.substr(0, digits + 1);
    if (!head.ends_with(tail)) return false;
    const std::size_t at = head.size() - tail.size();
    if (at > 0 && head[at - 1] != '.') return false;
    prefix = std::string(head.substr(0, at));
    block = std::stol(std::string(name.substr(digits + 1)));
    return true;
}

// The blocks of a stack from its attention layers' names: the prefix and L (largest block + 1).
// Refuses a stack with a block missing in between (its attention tensors are not in the file).
Expected<Index> countBlocks(const Checkpoint& checkpoint, std::string_view tail, std::string_view after,
                            std::string& prefix)
{
    std::set<Index> blocks;
    bool first = true;
    for (const CheckpointLayer& layer : checkpoint.layers) {
        std::string p;
        Index block = 0;
        if (!splitBlockName(layer.name, tail, after, p, block)) continue;
        if (first) prefix = p;
        first = false;
        if (p == prefix) blocks.insert(block);
    }
    if (blocks.empty())
        return Error{checkpoint.path + ": no layer named '..." + std::string(tail) + "N" + std::string(after) + "'"};
    const Index count = *blocks.rbegin() + 1;
    for (Index b = 0; b < count; ++b)
        if (!blocks.contains(b))
            return Error{checkpoint.path + ": the attention tensors of '" + prefix + std::string(tail) +
                         std::to_string(b) + std::string(after) + "' are missing (blocks 0 to " +
                         std::to_string(count - 1) + " are expected)"};
    return count;
}

// L from the layers, checked against config.json's key when it says one.
Status checkLayerCount(const Checkpoint& checkpoint, const std::optional<Index>& configured, Index found,
                       const std::string& what)
{
    if (!configured || *configured == found) return {};
    if (*configured > found)
        return Error{checkpoint.path + ": " + checkpoint.configPath + " says " + std::to_string(*configured) + " " +
                     what + " but the file holds the attention tensors of " + std::to_string(found) +
                     ": the tensors of block " + std::to_string(found) + " and after are missing"};
    return Error{checkpoint.path + ": the file holds " + std::to_string(found) + " " + what + " but " +
                 checkpoint.configPath + " says " + std::to_string(*configured)};
}

Expected<BlockActivation> activationFrom(const Checkpoint& checkpoint, std::string_view usual)
{
    const std::string& spelled = checkpoint.config.activation;
    const std::string_view name = spelled.empty() ? usual : std::string_view(spelled);
    for (const auto& entry : kActivationSpellings)
        if (entry.name == name && entry.value != BlockActivation::SwiGlu) return entry.value;
    return Error{checkpoint.configPath + ": '" + checkpoint.config.activationKey + "' is \"" + spelled +
                 "\", an activation not run here (known: gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, relu, "
                 "silu, swish)"};
}

// Rows and columns of a stored table, or {0, 0} when absent or not a matrix.
std::pair<Index, Index> tableShape(const Checkpoint& checkpoint, const std::string& name)
{
    const auto it = checkpoint.tensors.find(name);
    if (it == checkpoint.tensors.end() || it->second.shape.size() != 2) return {0, 0};
    return {static_cast<Index>(it->second.shape[0]), static_cast<Index>(it->second.shape[1])};
}

// V, d_model and P from the tables the names give (the loader checks every shape again).
Status tableSizes(const Checkpoint& checkpoint, FamilyRecipe& recipe, ModelStack stack)
{
    const EmbeddingTensorNames names = embeddingTensorNames(recipe, stack);
    for (const std::string* name : {&names.tokens, &names.positions, &names.tokenTypes})
        if (!name->empty() && !checkpoint.tensors.contains(*name))
            return Error{checkpoint.path + ": the " + std::string(pretrainedFamilyName(recipe.family)) +
                         " model has no '" + *name + "'"};
    const auto [V, d] = tableShape(checkpoint, names.tokens);
    if (V == 0)
        return Error{checkpoint.tensors.at(names.tokens).file + ": tensor '" + names.tokens + "' is not a matrix"};
    recipe.vocabularySize = V;
    recipe.d_model = d;
    if (!names.positions.empty()) {
        const Index rows = tableShape(checkpoint, names.positions).first;
        if (rows <= recipe.positionOffset)
            return Error{checkpoint.tensors.at(names.positions).file + ": tensor '" + names.positions + "' has " +
                         std::to_string(rows) + " rows, but positions start at row " +
                         std::to_string(recipe.positionOffset)};
        recipe.positionCount = rows - recipe.positionOffset;
    }
    return {};
}

// d_ff: config.json's key, else the first block's MLP weight (GPT-2's n_inner is null: 4 d_model).
Status feedForwardWidth(const Checkpoint& checkpoint, FamilyRecipe& recipe, ModelStack stack)
{
    // BART and Marian say the encoder's as encoder_ffn_dim (the decoder's: seq2seqRecipe).
    const std::optional<Index> configured =
        recipe.encoderDecoder() ? checkpoint.config.encoderFfnDim : checkpoint.config.d_ff;
    if (configured) {
        recipe.d_ff = *configured;
        return {};
    }
    const std::string name = blockTensorNames(recipe, stack, 0).feedForwardIn + ".weight";
    const auto [rows, cols] = tableShape(checkpoint, name);
    recipe.d_ff = recipe.linearLayout == LinearLayout::OutByIn ? rows : cols;
    if (recipe.d_ff == 0)
        return Error{checkpoint.path + ": the " + std::string(pretrainedFamilyName(recipe.family)) + " model lacks '" +
                     name + "' (or it is not a matrix)"};
    return {};
}

// The masked-LM head, when the file has its transform (tied to the token table unless the
// decoder's weight is stored).
void maskedLmReadout(const Checkpoint& checkpoint, FamilyRecipe& recipe)
{
    recipe.readout = ReadoutKind::MaskedLm;
    const ReadoutTensorNames names = readoutTensorNames(recipe);
    if (!checkpoint.tensors.contains(names.transform + ".weight")) {
        recipe.readout = ReadoutKind::None;
        return;
    }
    recipe.tiedReadout = !checkpoint.tensors.contains(names.decoder);
}

Expected<FamilyRecipe> bertRecipe(const Checkpoint& checkpoint)
{
    FamilyRecipe r;
    Expected<Index> blocks = countBlocks(checkpoint, "encoder.layer.", ".attention", r.prefix);
    if (!blocks) return Error{blocks.error()};
    const std::string& type = checkpoint.config.modelType;
    const bool roberta = type == "roberta" || type == "xlm-roberta" || r.prefix == "roberta.";
    r.family = roberta ? PretrainedFamily::Roberta : PretrainedFamily::Bert;
    // Relative position kinds add a learned term to every score, which multiHeadAttentionForward
    // does not compute: running without it would show wrong attention.
    if (const std::string& kind = checkpoint.config.positionEmbeddingType; !kind.empty() && kind != "absolute")
        return Error{checkpoint.configPath + ": 'position_embedding_type' is \"" + kind +
                     "\"; only absolute (learned) positions are run here"};
    if (Status s = checkLayerCount(checkpoint, checkpoint.config.layerCount, *blocks, "layers (num_hidden_layers)"); !s)
        return Error{s.error()};
    r.encoderLayerCount = *blocks;
    r.epsilon = checkpoint.config.layerNormEpsilon.value_or(1e-12);
    Expected<BlockActivation> activation = activationFrom(checkpoint, "gelu");
    if (!activation) return Error{activation.error()};
    r.activation = r.readoutActivation = *activation;
    r.readoutEpsilon = r.epsilon;
    r.tokenTypes = true;
    r.embeddingNorm = true;
    if (roberta) {  // create_position_ids_from_input_ids: positions count from padding_idx + 1
        r.padTokenId = checkpoint.config.padTokenId.value_or(1);
        r.positionOffset = r.padTokenId + 1;
    }
    maskedLmReadout(checkpoint, r);
    return r;
}

Expected<FamilyRecipe> distilBertRecipe(const Checkpoint& checkpoint)
{
    FamilyRecipe r;
    r.family = PretrainedFamily::DistilBert;
    Expected<Index> blocks = countBlocks(checkpoint, "transformer.layer.", ".attention", r.prefix);
    if (!blocks) return Error{blocks.error()};
    if (Status s = checkLayerCount(checkpoint, checkpoint.config.layerCount, *blocks, "layers (n_layers)"); !s)
        return Error{s.error()};
    r.encoderLayerCount = *blocks;
    r.epsilon = r.readoutEpsilon = 1e-12;  // DistilBERT's LayerNorms fix eps = 1e-12 (no config key)
    Expected<BlockActivation> activation = activationFrom(checkpoint, "gelu");
    if (!activation) return Error{activation.error()};
    r.activation = r.readoutActivation = *activation;
    r.embeddingNorm = true;
    maskedLmReadout(checkpoint, r);
    return r;
}

Expected<FamilyRecipe> gpt2Recipe(const Checkpoint& checkpoint)
{
    FamilyRecipe r;
    r.family = PretrainedFamily::Gpt2;
    Expected<Index> blocks = countBlocks(checkpoint, "h.", ".attn", r.prefix);
    if (!blocks) return Error{blocks.error()};
    if (Status s = checkLayerCount(checkpoint, checkpoint.config.layerCount, *blocks, "blocks (n_layer)"); !s)
        return Error{s.error()};
    r.decoderLayerCount = *blocks;
    r.placement = NormPlacement::Pre;
    r.epsilon = checkpoint.config.layerNormEpsilon.value_or(1e-5);
    Expected<BlockActivation> activation = activationFrom(checkpoint, "gelu_new");
    if (!activation) return Error{activation.error()};
    r.activation = *activation;
    r.linearLayout = LinearLayout::InByOut;
    r.finalNorm = true;
    r.readout = ReadoutKind::CausalLm;  // GPT2LMHeadModel's lm_head is wte (tied) unless stored
    r.tiedReadout = !checkpoint.tensors.contains(readoutTensorNames(r).decoder);
    return r;
}

// LLaMA-style (LlamaForCausalLM; Mistral and Qwen2 name their tensors alike): pre-RMSNorm,
// SwiGLU, rotate-half rotary positions with rope_theta, g key/value heads, final norm, lm_head.
Expected<FamilyRecipe> llamaRecipe(const Checkpoint& checkpoint)
{
    FamilyRecipe r;
    r.family = PretrainedFamily::Llama;
    Expected<Index> blocks = countBlocks(checkpoint, "layers.", ".self_attn", r.prefix);
    if (!blocks) return Error{blocks.error()};
    if (Status s = checkLayerCount(checkpoint, checkpoint.config.layerCount, *blocks, "blocks (num_hidden_layers)"); !s)
        return Error{s.error()};
    r.decoderLayerCount = *blocks;
    r.norm = PretrainedNorm::RmsNorm;
    r.placement = NormPlacement::Pre;
    r.epsilon = checkpoint.config.rmsNormEpsilon.value_or(1e-6);  // LlamaConfig's default
    // The gate's nonlinearity is hidden_act; the gated MLP is SwiGLU only with SiLU.
    Expected<BlockActivation> gate = activationFrom(checkpoint, "silu");
    if (!gate) return Error{gate.error()};
    if (*gate != BlockActivation::Silu)
        return Error{checkpoint.configPath + ": '" + checkpoint.config.activationKey + "' is \"" +
                     checkpoint.config.activation + "\"; a LLaMA-style gated MLP runs with silu (SwiGLU) only"};
    r.activation = BlockActivation::SwiGlu;
    r.positions = PretrainedPositions::Rotary;
    r.ropeBase = checkpoint.config.ropeTheta.value_or(10000.0);
    r.finalNorm = true;
    r.readout = ReadoutKind::CausalLm;
    r.tiedReadout = checkpoint.config.tieWordEmbeddings.value_or(false) ||
                    !checkpoint.tensors.contains(readoutTensorNames(r).decoder);
    return r;
}

// BART and Marian (BartForConditionalGeneration, MarianMTModel): an encoder and a decoder of
// post-LayerNorm blocks (eps 1e-5, nn.LayerNorm's default: no config key), the decoder's blocks
// with cross-attention, an LM head tied to model.shared plus final_logits_bias. BART: learned
// positions from row 2 and layernorm_embedding; Marian: sinusoidal positions (sines, then
// cosines) and no embedding norm. Both scale the token embeddings by sqrt(d_model) with
// scale_embedding.
Expected<FamilyRecipe> seq2seqRecipe(const Checkpoint& checkpoint)
{
    FamilyRecipe r;
    const CheckpointConfig& config = checkpoint.config;
    Expected<Index> encoderBlocks = countBlocks(checkpoint, "encoder.layers.", ".self_attn", r.prefix);
    if (!encoderBlocks) return Error{encoderBlocks.error()};
    std::string decoderPrefix;
    Expected<Index> decoderBlocks = countBlocks(checkpoint, "decoder.layers.", ".self_attn", decoderPrefix);
    if (!decoderBlocks) return Error{decoderBlocks.error()};
    if (decoderPrefix != r.prefix)
        return Error{checkpoint.path + ": the encoder's layers are under '" + r.prefix + "encoder.' but the decoder's under '" +
                     decoderPrefix + "decoder.'"};
    if (Status s = checkLayerCount(checkpoint, config.encoderLayerCount, *encoderBlocks, "encoder layers (encoder_layers)"); !s)
        return Error{s.error()};
    if (Status s = checkLayerCount(checkpoint, config.decoderLayerCount, *decoderBlocks, "decoder layers (decoder_layers)"); !s)
        return Error{s.error()};
    const std::string& type = config.modelType;
    const bool marian = type == "marian" || (type.empty() && !checkpoint.tensors.contains(r.prefix + "encoder.embed_positions.weight"));
    if (!type.empty() && type != "bart" && type != "marian")
        return Error{checkpoint.path + ": model_type \"" + type + "\" is not run whole yet (bart and marian are); its layers load one at a time"};
    r.family = marian ? PretrainedFamily::Marian : PretrainedFamily::Bart;
    r.encoderLayerCount = *encoderBlocks;
    r.decoderLayerCount = *decoderBlocks;
    r.epsilon = 1e-5;
    Expected<BlockActivation> activation = activationFrom(checkpoint, "gelu");
    if (!activation) return Error{activation.error()};
    r.activation = *activation;
    if (marian) {
        r.positions = PretrainedPositions::Sinusoidal;
        r.positionCount = config.positionCount.value_or(1024);  // MarianConfig's default
    } else {
        r.positionOffset = 2;  // BartLearnedPositionalEmbedding: rows 0 and 1 are never read
        r.embeddingNorm = true;
    }
    r.readout = ReadoutKind::CausalLm;
    r.tiedReadout = config.tieWordEmbeddings.value_or(true) || !checkpoint.tensors.contains(readoutTensorNames(r).decoder);
    // Marian's decoder starts with its pad token (MarianConfig: decoder_start_token_id = pad_token_id).
    r.decoderStartTokenId = config.decoderStartTokenId.value_or(marian ? config.padTokenId.value_or(-1) : -1);
    // The decoder's MLP width (it may differ from the encoder's): config.json, else its fc1's shape.
    const auto [rows, cols] = tableShape(checkpoint, blockTensorNames(r, ModelStack::Decoder, 0).feedForwardIn + ".weight");
    (void)cols;
    r.decoderD_ff = config.decoderFfnDim.value_or(rows);
    return r;
}

}  // namespace

std::string_view pretrainedFamilyName(PretrainedFamily family) { return nameOf(kPretrainedFamilyNames, family); }

Expected<FamilyRecipe> familyRecipe(const Checkpoint& checkpoint)
{
    if (checkpoint.layers.empty()) return Error{checkpoint.path + ": no attention layer"};
    const CheckpointFamily family = checkpoint.layers.front().family;
    Expected<FamilyRecipe> recipe = Error{""};
    switch (family) {
    case CheckpointFamily::Bert: recipe = bertRecipe(checkpoint); break;
    case CheckpointFamily::DistilBert: recipe = distilBertRecipe(checkpoint); break;
    case CheckpointFamily::Gpt2: recipe = gpt2Recipe(checkpoint); break;
    case CheckpointFamily::Llama: recipe = llamaRecipe(checkpoint); break;
    case CheckpointFamily::Bart: recipe = seq2seqRecipe(checkpoint); break;
    case CheckpointFamily::T5:
    case CheckpointFamily::PyTorch:
        return Error{checkpoint.path + ": the whole " + std::string(checkpointFamilyName(family)) +
                     " model is not run yet (BERT, RoBERTa, DistilBERT, GPT-2, LLaMA-style, BART and Marian are); "
                     "its layers load one at a time"};
    }
    if (!recipe) return recipe;
    FamilyRecipe& r = *recipe;
    const CheckpointLayer& first = checkpoint.layers.front();
    r.headCount = first.headCount;
    r.keyValueHeadCount = first.keyValueHeadCount;
    const ModelStack stack = r.encoderLayerCount > 0 ? ModelStack::Encoder : ModelStack::Decoder;
    if (Status s = tableSizes(checkpoint, r, stack); !s) return Error{s.error()};
    if (checkpoint.config.d_model && *checkpoint.config.d_model != r.d_model)
        return Error{checkpoint.path + ": the token embeddings give d_model = " + std::to_string(r.d_model) + " but " +
                     checkpoint.configPath + " says " + std::to_string(*checkpoint.config.d_model)};
    if (checkpoint.config.positionCount && r.positionCount > *checkpoint.config.positionCount)
        r.positionCount = *checkpoint.config.positionCount;
    if (Status s = feedForwardWidth(checkpoint, r, stack); !s) return Error{s.error()};
    if (checkpoint.config.scaleEmbedding.value_or(false))  // BART, Marian: embed_scale = sqrt(d_model)
        r.embeddingScale = static_cast<float>(std::sqrt(static_cast<double>(r.d_model)));
    return recipe;
}

std::string recipeSummary(const FamilyRecipe& recipe)
{
    std::string text = recipe.placement == NormPlacement::Post ? "post-" : "pre-";
    text += recipe.norm == PretrainedNorm::RmsNorm ? "RMSNorm" : "LayerNorm";
    std::string_view act = "swiglu";
    for (const auto& entry : kActivationSpellings)
        if (entry.value == recipe.activation) {
            act = entry.name;
            break;
        }
    text += ", " + std::string(act);
    switch (recipe.positions) {
    case PretrainedPositions::Learned:
        text += ", learned positions";
        if (recipe.positionOffset > 0) text += " from row " + std::to_string(recipe.positionOffset);
        break;
    case PretrainedPositions::Rotary: text += ", rotary positions"; break;
    case PretrainedPositions::Sinusoidal: text += ", sinusoidal positions"; break;
    case PretrainedPositions::None: text += ", no positions"; break;
    }
    switch (recipe.readout) {
    case ReadoutKind::None: text += ", no readout"; break;
    case ReadoutKind::MaskedLm: text += ", masked-LM head"; break;
    case ReadoutKind::CausalLm: text += ", LM head"; break;
    }
    if (recipe.readout != ReadoutKind::None)
        text += recipe.tiedReadout ? " tied to the token embeddings" : " with its own weights";
    return text;
}

}  // namespace qkv
