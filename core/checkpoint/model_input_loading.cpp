#include "core/checkpoint/model_input_loading.hpp"

#include <filesystem>
#include <set>
#include <vector>

#include "core/common/path_exists.hpp"
#include "core/families/family_table.hpp"
#include "core/modelfiles/tensor_reading.hpp"

namespace qkv {

namespace {

using namespace checkpoint_detail;

// The tensors and the tokenizer a layer's model input needs.
struct ModelInputPlan {
    ModelInputRecipe recipe = ModelInputRecipe::Bert;
    std::string tokens, positions, tokenTypes, gamma, beta;  // tensor names (tokenTypes: BERT only)
    double epsilon = 1e-12;
    std::string folder;  // where the tokenizer files are
};

// `module` ends with `tail` as whole segments; the prefix before it ("bert.", "transformer.", "").
bool splitFirstLayer(std::string_view module, std::string_view tail, std::string& prefix)
{
    if (!module.ends_with(tail)) return false;
    const std::size_t at = module.size() - tail.size();
    if (at > 0 && module[at - 1] != '.') return false;
    prefix = std::string(module.substr(0, at));
    return true;
}

std::string folderOf(const std::string& path)
{
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    return parent.empty() ? std::string(".") : parent.string();
}

std::string notFirstLayer(const CheckpointLayer& layer)
{
    return "X is the model's own input to its first layer only; '" + layer.name +
           "' reads what the layers before it computed, which this app does not compute: it keeps the "
           "generated embeddings";
}

// "BERT and GPT-2": the rows whose own input is built here.
std::string rowsWithOwnInput()
{
    std::vector<std::string_view> names;
    for (const FamilyRow& row : kFamilyRows)
        if (row.ownInput) names.push_back(row.name);
    std::string text;
    for (std::size_t i = 0; i < names.size(); ++i)
        text += std::string(i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + std::string(names[i]);
    return text;
}

// The row of the checkpoint among those sharing `row`'s layers, when it is another one (RoBERTa's
// names or model_type among BERT's layers), else null.
const FamilyRow* otherRowOfLayers(const Checkpoint& checkpoint, const FamilyRow& row, const std::string& prefix)
{
    for (const FamilyRow& other : kFamilyRows) {
        if (other.layers != row.value || other.value == row.value) continue;
        if (!other.prefixHint.empty() && other.prefixHint == prefix) return &other;
        for (const std::string_view type : other.modelTypes)
            if (!type.empty() && type == checkpoint.config.modelType) return &other;
    }
    return nullptr;
}

Expected<ModelInputPlan> planFor(const Checkpoint& checkpoint, const CheckpointLayer& layer)
{
    ModelInputPlan plan;
    plan.folder = folderOf(checkpoint.path);
    // The layer family's row names the tables: its embeddings, and the norm the first layer reads
    // (the embeddings' own, or a pre-norm model's first block's).
    const FamilyRow& row = layerFamilyRow(layer.family);
    if (!row.ownInput)
        return Error{"the model's own input is built for " + rowsWithOwnInput() + " checkpoints; " +
                     std::string(layerFamilyName(layer.family)) + " layers keep the generated embeddings"};
    std::string prefix;
    const std::string firstLayer = tensorName(row.block.attention.substr(3), "", ModelStack::Encoder, 0);  // after {p}
    if (!splitFirstLayer(layer.name, firstLayer, prefix)) return Error{notFirstLayer(layer)};
    if (const FamilyRow* other = otherRowOfLayers(checkpoint, row, prefix))
        return Error{std::string(other->name) + "'s own input is not built here (" + rowsWithOwnInput() +
                     "'s are); the layer keeps the generated embeddings"};
    plan.recipe = *row.ownInput;
    plan.tokens = tensorName(row.embeddings.tokens, prefix, ModelStack::Encoder);
    plan.positions = tensorName(row.embeddings.positions, prefix, ModelStack::Encoder);
    plan.tokenTypes = tensorName(row.embeddings.tokenTypes, prefix, ModelStack::Encoder);
    const std::string norm = row.embeddings.norm.empty()
                                 ? tensorName(row.block.attentionNorm, prefix, ModelStack::Encoder, 0)
                                 : tensorName(row.embeddings.norm, prefix, ModelStack::Encoder);
    const bool old = !checkpoint.tensors.contains(norm + ".weight") && checkpoint.tensors.contains(norm + ".gamma");
    plan.gamma = norm + (old ? ".gamma" : ".weight");
    plan.beta = norm + (old ? ".beta" : ".bias");
    plan.epsilon = row.epsilonKey ? (checkpoint.config.*row.epsilonKey).value_or(row.epsilon) : row.epsilon;
    std::vector<std::string> missing;
    for (const std::string* name : {&plan.tokens, &plan.positions, &plan.tokenTypes, &plan.gamma, &plan.beta})
        if (!name->empty() && !checkpoint.tensors.contains(*name)) missing.push_back(*name);
    if (!missing.empty()) {
        std::string list;
        for (const std::string& name : missing) list += (list.empty() ? "'" : ", '") + name + "'";
        return Error{checkpoint.path + " has no " + list + ": the model's own input cannot be built, and the layer "
                                                            "keeps the generated embeddings"};
    }
    const bool wordPiece = plan.recipe == ModelInputRecipe::Bert;
    const std::filesystem::path folder(plan.folder);
    const bool found = wordPiece ? pathExists(folder / "vocab.txt")
                                 : pathExists(folder / "vocab.json") && pathExists(folder / "merges.txt");
    if (!found)
        return Error{"no tokenizer files beside " + checkpoint.path + " (" +
                     (wordPiece ? "BERT reads vocab.txt" : "GPT-2 reads vocab.json and merges.txt") +
                     "): the layer keeps the generated embeddings"};
    return plan;
}

// Every table has d_model columns; the vocabulary fits the token table; the norm is d_model wide.
Status checkTables(const Checkpoint& checkpoint, const CheckpointLayer& layer, const ModelInputPlan& plan,
                   const SubwordTokenizer& tokenizer)
{
    const auto d = static_cast<std::size_t>(layer.d_model);
    for (const std::string* name : {&plan.tokens, &plan.positions, &plan.tokenTypes, &plan.gamma, &plan.beta}) {
        if (name->empty()) continue;
        const CheckpointTensor& t = checkpoint.tensors.at(*name);
        const bool vector = name == &plan.gamma || name == &plan.beta;
        const bool ok = vector ? t.shape == std::vector<std::size_t>{d}
                               : t.shape.size() == 2 && t.shape[1] == d && t.shape[0] > 0;
        if (!ok)
            return Error{t.file + ": tensor '" + *name + "' is " + shapeText(t.shape) + ", expected " +
                         (vector ? std::to_string(d) : "rows x " + std::to_string(d)) + " (d_model = " +
                         std::to_string(d) + ")"};
    }
    const CheckpointTensor& tokens = checkpoint.tensors.at(plan.tokens);
    if (tokenizer.vocabularySize() > tokens.shape[0])
        return Error{plan.folder + ": the tokenizer has " + std::to_string(tokenizer.vocabularySize()) +
                     " tokens but '" + plan.tokens + "' has " + std::to_string(tokens.shape[0]) +
                     " rows: the tokenizer files do not belong to this checkpoint"};
    return {};
}

}  // namespace

Status modelInputAvailable(const Checkpoint& checkpoint, const CheckpointLayer& layer)
{
    Expected<ModelInputPlan> plan = planFor(checkpoint, layer);
    if (!plan) return Error{plan.error()};
    return {};
}

Expected<std::shared_ptr<const ModelInput>> loadModelInput(const Checkpoint& checkpoint, const CheckpointLayer& layer)
{
    Expected<ModelInputPlan> plan = planFor(checkpoint, layer);
    if (!plan) return Error{plan.error()};
    Expected<SubwordTokenizer> tokenizer = loadSubwordTokenizer(plan->folder);
    if (!tokenizer) return Error{tokenizer.error()};
    if (tokenizer->readsWordPieces() != (plan->recipe == ModelInputRecipe::Bert))
        return Error{plan->folder + ": the tokenizer files are " +
                     (tokenizer->readsWordPieces() ? "WordPiece" : "not WordPiece") + " (" + tokenizer->description() + ")" +
                     ", but a " + std::string(layerFamilyName(layer.family)) + " model reads " +
                     (plan->recipe == ModelInputRecipe::Bert ? "WordPiece" : "byte-level BPE")};
    if (Status s = checkTables(checkpoint, layer, *plan, *tokenizer); !s) return Error{s.error()};

    std::set<std::string> names = {plan->tokens, plan->positions, plan->gamma, plan->beta};
    if (!plan->tokenTypes.empty()) names.insert(plan->tokenTypes);
    Expected<LoadedTensors> loaded = readTensors(checkpoint.tensors, names);
    if (!loaded) return Error{loaded.error()};
    ModelInputTables tables;
    tables.recipe = plan->recipe;
    tables.tokenEmbeddings = std::move(loaded->at(plan->tokens));
    tables.positionEmbeddings = std::move(loaded->at(plan->positions));
    if (!plan->tokenTypes.empty()) tables.tokenTypeEmbeddings = std::move(loaded->at(plan->tokenTypes));
    tables.norm.gamma = asRow(loaded->at(plan->gamma));
    tables.norm.beta = asRow(loaded->at(plan->beta));
    tables.norm.epsilon = plan->epsilon;
    return std::make_shared<const ModelInput>(std::move(*tokenizer), std::move(tables),
                                              layer.name + " of " + checkpoint.path);
}

Expected<std::shared_ptr<const ModelInput>> loadModelInput(const std::string& path, std::string_view nameOrIndex,
                                                           const CheckpointOptions& options)
{
    Expected<Checkpoint> checkpoint = openCheckpoint(path, options);
    if (!checkpoint) return Error{checkpoint.error()};
    Expected<CheckpointLayer> layer = findCheckpointLayer(*checkpoint, nameOrIndex);
    if (!layer) return Error{layer.error()};
    return loadModelInput(*checkpoint, *layer);
}

}  // namespace qkv
