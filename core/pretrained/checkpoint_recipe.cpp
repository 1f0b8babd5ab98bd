#include "core/pretrained/checkpoint_recipe.hpp"

#include <cmath>
#include <set>
#include <string>

#include "core/families/family_table.hpp"
#include "core/families/family_tensors.hpp"

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
                       std::string_view what)
{
    if (!configured || *configured == found) return {};
    if (*configured > found)
        return Error{checkpoint.path + ": " + checkpoint.configPath + " says " + std::to_string(*configured) + " " +
                     std::string(what) + " but the file holds the attention tensors of " + std::to_string(found) +
                     ": the tensors of block " + std::to_string(found) + " and after are missing"};
    return Error{checkpoint.path + ": the file holds " + std::to_string(found) + " " + std::string(what) + " but " +
                 checkpoint.configPath + " says " + std::to_string(*configured)};
}

// The stacks of a model whose layers are `row`'s (every row of one layer family shares its block
// names and stacks): the prefix and each stack's L.
Status countStacks(const Checkpoint& checkpoint, const FamilyRow& row, FamilyRecipe& r)
{
    std::vector<ModelStack> stacks;
    if (row.stacks != FamilyStacks::Decoder) stacks.push_back(ModelStack::Encoder);
    if (row.stacks != FamilyStacks::Encoder) stacks.push_back(ModelStack::Decoder);
    std::vector<std::string> prefixes;
    for (const ModelStack stack : stacks) {
        // "{p}{s}.layers.{b}.self_attn" -> tail "encoder.layers.", after ".self_attn" (checkFamilyRow:
        // the pattern starts with {p} and has one {b})
        const std::string_view pattern = std::string_view(row.block.attention).substr(3);
        const std::size_t block = pattern.find("{b}");
        std::string prefix;
        Expected<Index> count = countBlocks(checkpoint, tensorName(pattern.substr(0, block), "", stack),
                                            tensorName(pattern.substr(block + 3), "", stack), prefix);
        if (!count) return Error{count.error()};
        (stack == ModelStack::Encoder ? r.encoderLayerCount : r.decoderLayerCount) = *count;
        prefixes.push_back(std::move(prefix));
    }
    if (prefixes.size() == 2 && prefixes[0] != prefixes[1])
        return Error{checkpoint.path + ": the encoder's layers are under '" + prefixes[0] +
                     "encoder.' but the decoder's under '" + prefixes[1] + "decoder.'"};
    r.prefix = prefixes[0];
    return {};
}

// Each stack's L against config.json (an encoder-decoder: encoder_layers, decoder_layers; else the
// family's plain L key).
Status checkStackCounts(const Checkpoint& checkpoint, const FamilyRow& row, const FamilyRecipe& r)
{
    const CheckpointConfig& config = checkpoint.config;
    if (row.stacks == FamilyStacks::EncoderDecoder) {
        if (Status s =
                checkLayerCount(checkpoint, config.encoderLayerCount, r.encoderLayerCount, row.layerCountWords[0]);
            !s)
            return s;
        return checkLayerCount(checkpoint, config.decoderLayerCount, r.decoderLayerCount, row.layerCountWords[1]);
    }
    const Index found = row.stacks == FamilyStacks::Encoder ? r.encoderLayerCount : r.decoderLayerCount;
    return checkLayerCount(checkpoint, config.layerCount, found, row.layerCountWords[0]);
}

// Relative position kinds add a learned term to every score, which multiHeadAttentionForward does
// not compute: running without it would show wrong attention.
Status checkPositionKind(const Checkpoint& checkpoint, const FamilyRow& row)
{
    const std::string& kind = checkpoint.config.positionEmbeddingType;
    if (!row.absolutePositionsOnly || kind.empty() || kind == "absolute") return {};
    return Error{checkpoint.configPath + ": 'position_embedding_type' is \"" + kind +
                 "\"; only absolute (learned) positions are run here"};
}

// "a, b and c".
std::string listed(const std::vector<std::string_view>& words)
{
    std::string text;
    for (std::size_t i = 0; i < words.size(); ++i)
        text += std::string(i == 0 ? "" : i + 1 == words.size() ? " and " : ", ") + std::string(words[i]);
    return text;
}

// Which of the rows of one layer family a checkpoint is: the row whose prefix hint its names
// carry, else the one model_type spells, else (an unlisted model_type) the first that runs other
// types, else (no model_type) the first whose position table the file holds.
Expected<const FamilyRow*> chooseRow(const Checkpoint& checkpoint, const std::vector<const FamilyRow*>& rows,
                                     const std::string& prefix)
{
    for (const FamilyRow* row : rows)
        if (!row->prefixHint.empty() && row->prefixHint == prefix) return row;
    const std::string& type = checkpoint.config.modelType;
    std::vector<std::string_view> types;
    for (const FamilyRow* row : rows)
        for (const std::string_view spelling : row->modelTypes) {
            if (spelling.empty()) continue;
            if (spelling == type) return row;
            types.push_back(spelling);
        }
    if (!type.empty()) {
        for (const FamilyRow* row : rows)
            if (row->otherModelTypes) return row;
        return Error{checkpoint.path + ": model_type \"" + type + "\" is not run whole yet (" + listed(types) +
                     " are); its layers load one at a time"};
    }
    for (const FamilyRow* row : rows) {
        const std::string positions = tensorName(row->embeddings.positions, prefix, ModelStack::Encoder);
        if (positions.empty() || checkpoint.tensors.contains(positions)) return row;
    }
    return rows.front();
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
            return Error{checkpoint.path + ": the " + std::string(familyName(recipe.family)) +
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
    // An encoder-decoder says the encoder's as encoder_ffn_dim (the decoder's: rowRecipe).
    const std::optional<Index> configured =
        recipe.encoderDecoder() ? checkpoint.config.encoderFfnDim : checkpoint.config.d_ff;
    if (configured) {
        recipe.d_ff = *configured;
        return {};
    }
    const BlockTensorNames names = blockTensorNames(recipe, stack, 0);
    const bool fused = !names.feedForwardGateUp.empty();  // Phi-3: 2 d_ff rows
    const std::string name = (fused ? names.feedForwardGateUp : names.feedForwardIn) + ".weight";
    const auto [rows, cols] = tableShape(checkpoint, name);
    recipe.d_ff = (recipe.linearLayout == LinearLayout::OutByIn ? rows : cols) / (fused ? 2 : 1);
    if (recipe.d_ff == 0)
        return Error{checkpoint.path + ": the " + std::string(familyName(recipe.family)) + " model lacks '" +
                     name + "' (or it is not a matrix)"};
    return {};
}

// The row's block conventions, with config.json's epsilon and activation where it says them.
Status blockConventions(const Checkpoint& checkpoint, const FamilyRow& row, FamilyRecipe& r)
{
    r.norm = row.norm;
    r.placement = row.placement;
    r.epsilon = row.epsilonKey ? (checkpoint.config.*row.epsilonKey).value_or(row.epsilon) : row.epsilon;
    r.linearLayout = row.linearLayout;
    r.normWeightOffset = row.normWeightOffset;
    r.parallelResidual = checkpoint.config.parallelResidual.value_or(row.parallelResidual);
    Expected<BlockActivation> activation = activationFrom(checkpoint, row.activation);
    if (!activation) return Error{activation.error()};
    r.activation = *activation;
    if (!row.block.feedForwardGate.empty() || !row.block.feedForwardGateUp.empty()) {
        // The gate's nonlinearity is the activation key's: SiLU for the LLaMA-like rows (SwiGLU),
        // the row's own for Gemma (GeGLU).
        r.gatedFeedForward = true;
        const bool swiGluRow = row.activation == "silu";
        if (swiGluRow && *activation != BlockActivation::Silu)
            return Error{checkpoint.configPath + ": '" + checkpoint.config.activationKey + "' is \"" +
                         checkpoint.config.activation + "\"; a " + std::string(row.name) +
                         " gated MLP runs with silu (SwiGLU) only"};
        if (swiGluRow) r.activation = BlockActivation::SwiGlu;
    }
    if (row.readoutKind == ReadoutKind::MaskedLm) {  // the transform's act and norm are the blocks'
        r.readoutActivation = r.activation;
        r.readoutEpsilon = r.epsilon;
    }
    return {};
}

// The row's input conventions; an encoder-decoder's decoder start token.
void inputConventions(const Checkpoint& checkpoint, const FamilyRow& row, FamilyRecipe& r)
{
    const CheckpointConfig& config = checkpoint.config;
    r.positions = row.positions;
    r.positionOffset = row.positionOffset;
    if (row.padPositions >= 0) {  // pad tokens take row pad; the others count from pad + 1
        r.padTokenId = config.padTokenId.value_or(row.padPositions);
        r.positionOffset = r.padTokenId + 1;
    }
    if (row.positions == PretrainedPositions::Rotary) {
        r.ropeBase = config.ropeTheta.value_or(10000.0);
        r.ropeScaling = config.ropeScaling;
    }
    r.slidingWindow = config.slidingWindow.value_or(0);
    if (row.positions == PretrainedPositions::Sinusoidal)
        r.positionCount = config.positionCount.value_or(row.positionCount);
    r.tokenTypes = !row.embeddings.tokenTypes.empty();
    r.embeddingNorm = !row.embeddings.norm.empty();
    if (r.encoderDecoder())
        r.decoderStartTokenId =
            config.decoderStartTokenId.value_or(row.decoderStartsWithPad ? config.padTokenId.value_or(-1) : -1);
}

// The final norm and the readout: a masked-LM head only when the file has its transform; the
// readout's E tied to the token table as the row's tying says.
void outputConventions(const Checkpoint& checkpoint, const FamilyRow& row, FamilyRecipe& r)
{
    r.finalNorm = !row.finalNorm.empty();
    r.finalLogitSoftCap = checkpoint.config.finalLogitSoftCap.value_or(0.0);
    r.readout = row.readoutKind;
    const ReadoutTensorNames names = readoutTensorNames(r);
    if (r.readout == ReadoutKind::None) return;
    if (r.readout == ReadoutKind::MaskedLm && !checkpoint.tensors.contains(names.transform + ".weight")) {
        r.readout = ReadoutKind::None;
        return;
    }
    const bool stored = checkpoint.tensors.contains(names.decoder);
    const std::optional<bool>& said = checkpoint.config.tieWordEmbeddings;
    switch (row.tying) {
    case ReadoutTying::UnlessStored: r.tiedReadout = !stored; break;
    case ReadoutTying::SaidElseUnlessStored: r.tiedReadout = said.value_or(false) || !stored; break;
    case ReadoutTying::SaidElseTied: r.tiedReadout = said.value_or(true) || !stored; break;
    }
}

// The recipe's family, stacks and conventions from the rows of the checkpoint's layer family.
Expected<FamilyRecipe> rowRecipe(const Checkpoint& checkpoint, Family layers)
{
    std::vector<const FamilyRow*> rows;
    std::vector<std::string_view> names;
    for (const FamilyRow& row : kFamilyRows) {
        if (!row.wholeModel) continue;
        names.push_back(row.name);
        if (row.layers != layers) continue;
        if (Status s = checkFamilyRow(row); !s) return Error{s.error()};
        rows.push_back(&row);
    }
    if (rows.empty())
        return Error{checkpoint.path + ": the whole " + std::string(layerFamilyName(layers)) +
                     " model is not run yet (" + listed(names) + " are); its layers load one at a time"};
    FamilyRecipe r;
    // In the order the checks always ran: the blocks, the position kind, config.json's L.
    if (Status s = countStacks(checkpoint, *rows.front(), r); !s) return Error{s.error()};
    if (Status s = checkPositionKind(checkpoint, *rows.front()); !s) return Error{s.error()};
    if (Status s = checkStackCounts(checkpoint, *rows.front(), r); !s) return Error{s.error()};
    Expected<const FamilyRow*> chosen = chooseRow(checkpoint, rows, r.prefix);
    if (!chosen) return Error{chosen.error()};
    const FamilyRow& row = **chosen;
    r.family = row.value;
    if (Status s = blockConventions(checkpoint, row, r); !s) return Error{s.error()};
    inputConventions(checkpoint, row, r);
    outputConventions(checkpoint, row, r);
    if (r.encoderDecoder()) {
        // The decoder's MLP width (it may differ from the encoder's): config.json, else its W_1's shape.
        const auto [stored0, stored1] =
            tableShape(checkpoint, blockTensorNames(r, ModelStack::Decoder, 0).feedForwardIn + ".weight");
        r.decoderD_ff =
            checkpoint.config.decoderFfnDim.value_or(r.linearLayout == LinearLayout::OutByIn ? stored0 : stored1);
    }
    return r;
}

}  // namespace

Expected<FamilyRecipe> familyRecipe(const Checkpoint& checkpoint)
{
    if (checkpoint.layers.empty()) return Error{checkpoint.path + ": no attention layer"};
    Expected<FamilyRecipe> recipe = rowRecipe(checkpoint, checkpoint.layers.front().family);
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
    // BART, Marian (scale_embedding) and Gemma: embed_scale = sqrt(d_model), in float as theirs.
    if (checkpoint.config.scaleEmbedding.value_or(false) || familyRow(r.family).embeddingsTimesSqrtD)
        r.embeddingScale = static_cast<float>(std::sqrt(static_cast<double>(r.d_model)));
    return recipe;
}

}  // namespace qkv
