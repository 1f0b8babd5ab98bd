#include "core/checkpoint/model_input_loading.hpp"

#include <filesystem>
#include <set>
#include <vector>

#include "core/checkpoint/tensor_reading.hpp"
#include "core/common/path_exists.hpp"

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

Expected<ModelInputPlan> planFor(const Checkpoint& checkpoint, const CheckpointLayer& layer)
{
    ModelInputPlan plan;
    plan.folder = folderOf(checkpoint.path);
    std::string prefix;
    if (layer.family == CheckpointFamily::Bert) {
        if (!splitFirstLayer(layer.name, "encoder.layer.0.attention", prefix)) return Error{notFirstLayer(layer)};
        if (checkpoint.config.modelType == "roberta" || prefix == "roberta.")
            return Error{"RoBERTa's own input (byte-level BPE, positions counted from 2) is not built here; the "
                         "layer keeps the generated embeddings"};
        plan.recipe = ModelInputRecipe::Bert;
        const std::string e = prefix + "embeddings.";
        plan.tokens = e + "word_embeddings.weight";
        plan.positions = e + "position_embeddings.weight";
        plan.tokenTypes = e + "token_type_embeddings.weight";
        const bool old = !checkpoint.tensors.contains(e + "LayerNorm.weight") && checkpoint.tensors.contains(e + "LayerNorm.gamma");
        plan.gamma = e + (old ? "LayerNorm.gamma" : "LayerNorm.weight");
        plan.beta = e + (old ? "LayerNorm.beta" : "LayerNorm.bias");
        plan.epsilon = checkpoint.config.layerNormEpsilon.value_or(1e-12);
    } else if (layer.family == CheckpointFamily::Gpt2) {
        if (!splitFirstLayer(layer.name, "h.0.attn", prefix)) return Error{notFirstLayer(layer)};
        plan.recipe = ModelInputRecipe::Gpt2;
        plan.tokens = prefix + "wte.weight";
        plan.positions = prefix + "wpe.weight";
        plan.gamma = prefix + "h.0.ln_1.weight";
        plan.beta = prefix + "h.0.ln_1.bias";
        plan.epsilon = checkpoint.config.layerNormEpsilon.value_or(1e-5);
    } else {
        return Error{"the model's own input is built for BERT and GPT-2 checkpoints; " +
                     std::string(checkpointFamilyName(layer.family)) + " layers keep the generated embeddings"};
    }
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
                     ", but a " + std::string(checkpointFamilyName(layer.family)) + " model reads " +
                     (plan->recipe == ModelInputRecipe::Bert ? "WordPiece" : "byte-level BPE")};
    if (Status s = checkTables(checkpoint, layer, *plan, *tokenizer); !s) return Error{s.error()};

    std::set<std::string> names = {plan->tokens, plan->positions, plan->gamma, plan->beta};
    if (!plan->tokenTypes.empty()) names.insert(plan->tokenTypes);
    Expected<LoadedTensors> loaded = readTensors(checkpoint, names);
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
