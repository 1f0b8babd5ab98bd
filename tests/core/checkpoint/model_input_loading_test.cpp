// The model's own first-layer input: a synthetic BERT and GPT-2 checkpoint
// with their embeddings and tokenizer files (tests/data/checkpoint/{bert,gpt2}_input, written by
// make_checkpoints.py with the independent tokenizers of tests/data/tokenizers/make_fixtures.py)
// go through the whole pipeline and must give the NumPy tokens, X, attention and output.

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/checkpoint/model_input_loading.hpp"
#include "core/pipeline/input_validation.hpp"
#include "core/pipeline/layer_input.hpp"
#include "core/io/io_test_support.hpp"
#include "core/io/npy.hpp"
#include "core/pipeline/compute.hpp"
#include "support/matrix_assertions.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;

std::string data(const std::string& name) { return std::string(qkv::testDataDir()) + "/checkpoint/" + name; }

MatrixF npy(const std::string& path)
{
    Expected<MatrixD> matrix = readNpyMatrixD(path);
    EXPECT_TRUE(matrix.ok()) << (matrix ? "" : matrix.error());
    return matrix ? MatrixF(matrix->cast<float>()) : MatrixF();
}

nlohmann::json inputJson(const std::string& folder)
{
    std::ifstream in(data(folder + "/input.json"));
    return nlohmann::json::parse(in);
}

struct Loaded {
    CheckpointLayerWeights layer;
    std::shared_ptr<const ModelInput> input;
};

Loaded load(const std::string& folder, const std::string& layerName)
{
    Loaded loaded;
    Expected<Checkpoint> checkpoint = openCheckpoint(data(folder + "/model.safetensors"));
    EXPECT_TRUE(checkpoint.ok()) << (checkpoint ? "" : checkpoint.error());
    if (!checkpoint) return loaded;
    Expected<CheckpointLayer> layer = findCheckpointLayer(*checkpoint, layerName);
    EXPECT_TRUE(layer.ok()) << (layer ? "" : layer.error());
    if (!layer) return loaded;
    EXPECT_TRUE(modelInputAvailable(*checkpoint, *layer).ok());
    Expected<CheckpointLayerWeights> weights = loadCheckpointLayer(*checkpoint, *layer);
    Expected<std::shared_ptr<const ModelInput>> input = loadModelInput(*checkpoint, *layer);
    EXPECT_TRUE(weights.ok()) << (weights ? "" : weights.error());
    EXPECT_TRUE(input.ok()) << (input ? "" : input.error());
    if (weights) loaded.layer = std::move(*weights);
    if (input) loaded.input = *input;
    return loaded;
}

// The typed sentence through compute() with Config::embeddings = Model: tokens, labels, X,
// every head's attention and the output against the NumPy reference.
void expectFirstLayerMatches(const std::string& folder, const std::string& layerName, const char* labelKey)
{
    const Loaded loaded = load(folder, layerName);
    ASSERT_TRUE(loaded.input);
    const nlohmann::json expected = inputJson(folder);
    Config config;
    config.sourceText = config.targetText = expected["text"].get<std::string>();
    applyCheckpointLayerSettings(loaded.layer.settings, config);
    config.embeddings = EmbeddingKind::Model;
    UserInputs inputs;
    inputs.weights = std::make_shared<const AttentionWeights>(loaded.layer.weights);
    inputs.modelInput = loaded.input;
    Expected<std::shared_ptr<const Result>> result = compute(config, inputs);
    ASSERT_TRUE(result.ok()) << result.error();
    const Result& r = **result;

    EXPECT_EQ(r.queryLabels, expected[labelKey].get<std::vector<std::string>>());
    EXPECT_EQ(r.keyLabels, r.queryLabels);
    const MatrixF x = npy(data(folder + "/input_x.npy"));
    EXPECT_MATRIX_NEAR(r.queryInput, x, 1e-5f);
    const std::string prefix = data(folder + "/" + layerName);
    const MatrixF attention = npy(prefix + "_attention.npy");  // h n x n
    for (Index head = 0; head < config.headCount; ++head)
        EXPECT_MATRIX_NEAR(r.attention.heads[static_cast<std::size_t>(head)].attention,
                           MatrixF(attention.middleRows(head * x.rows(), x.rows())), 1e-5f)
            << "head " << head + 1;
    EXPECT_MATRIX_NEAR(r.attention.output, npy(prefix + "_output.npy"), 1e-5f);

    // The ids themselves, straight from the model input.
    Expected<ModelSentence> sentence = loaded.input->embed(expected["text"].get<std::string>());
    ASSERT_TRUE(sentence.ok());
    EXPECT_EQ(sentence->tokens.ids(), expected["ids"].get<std::vector<std::int32_t>>());
}

TEST(ModelInputCheckpoint, BertFirstLayerReadsLayerNormOfWordPositionAndType)
{
    expectFirstLayerMatches("bert_input", "bert.encoder.layer.0.attention", "pieces");
}

TEST(ModelInputCheckpoint, Gpt2FirstLayerReadsLn1OfTokenAndPosition)
{
    expectFirstLayerMatches("gpt2_input", "transformer.h.0.attn", "display");
}

TEST(ModelInputCheckpoint, DescriptionNamesTheRecipeTokenizerAndLimit)
{
    const Loaded loaded = load("bert_input", "0");
    ASSERT_TRUE(loaded.input);
    const std::string text = loaded.input->description();
    EXPECT_NE(text.find("LayerNorm(token + position + token type)"), std::string::npos) << text;
    EXPECT_NE(text.find("WordPiece, 201 tokens, lower-cased (tokenizer_config.json)"), std::string::npos) << text;
    EXPECT_NE(text.find("up to 24 tokens"), std::string::npos) << text;
    EXPECT_EQ(loaded.input->d_model(), 16);
}

std::string unavailable(const std::string& folder, const std::string& layerName)
{
    Expected<Checkpoint> checkpoint = openCheckpoint(data(folder + "/model.safetensors"));
    if (!checkpoint) return checkpoint.error();
    Expected<CheckpointLayer> layer = findCheckpointLayer(*checkpoint, layerName);
    if (!layer) return layer.error();
    Status status = modelInputAvailable(*checkpoint, *layer);
    Expected<std::shared_ptr<const ModelInput>> input = loadModelInput(*checkpoint, *layer);
    EXPECT_EQ(status.ok(), input.ok());
    if (status) return "";
    EXPECT_EQ(status.error(), input.error());
    return status.error();
}

TEST(ModelInputCheckpoint, OtherLayersAndFamiliesSayWhyNot)
{
    EXPECT_NE(unavailable("bert_input", "bert.encoder.layer.1.attention").find("first layer only"), std::string::npos);
    EXPECT_NE(unavailable("gpt2_input", "transformer.h.1.attn").find("first layer only"), std::string::npos);
    EXPECT_NE(unavailable("llama", "model.layers.0.self_attn").find("BERT and GPT-2"), std::string::npos);
    EXPECT_NE(unavailable("bart", "model.encoder.layers.0.self_attn").find("BERT and GPT-2"), std::string::npos);
    // The plain BERT fixture has word embeddings only.
    const std::string missing = unavailable("bert", "bert.encoder.layer.0.attention");
    EXPECT_NE(missing.find("'bert.embeddings.position_embeddings.weight'"), std::string::npos) << missing;
    EXPECT_EQ(missing.find("'bert.embeddings.word_embeddings.weight'"), std::string::npos) << missing;
}

// A copy of a fixture folder to break.
std::string copyFixture(const ScratchDir& scratch, const std::string& folder)
{
    const fs::path to = scratch.file(folder);
    fs::copy(data(folder), to, fs::copy_options::recursive);
    return to.string();
}

TEST(ModelInputCheckpoint, MissingOrForeignTokenizerFilesAreRefused)
{
    ScratchDir scratch;
    const std::string bert = copyFixture(scratch, "bert_input");
    fs::remove(bert + "/vocab.txt");
    Expected<std::shared_ptr<const ModelInput>> input = loadModelInput(bert + "/model.safetensors", "0");
    ASSERT_FALSE(input.ok());
    EXPECT_NE(input.error().find("no tokenizer files beside"), std::string::npos) << input.error();
    EXPECT_NE(input.error().find("vocab.txt"), std::string::npos) << input.error();

    // A vocabulary larger than the token table belongs to another model.
    {
        std::ofstream vocab(bert + "/vocab.txt");
        for (int i = 0; i < 300; ++i)
            vocab << (i < 5 ? std::vector<std::string>{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}[i]
                            : "w" + std::to_string(i))
                  << "\n";
    }
    input = loadModelInput(bert + "/model.safetensors", "0");
    ASSERT_FALSE(input.ok());
    EXPECT_NE(input.error().find("300 tokens"), std::string::npos) << input.error();
    EXPECT_NE(input.error().find("do not belong to this checkpoint"), std::string::npos) << input.error();

    const std::string gpt2 = copyFixture(scratch, "gpt2_input");
    fs::remove(gpt2 + "/merges.txt");
    input = loadModelInput(gpt2 + "/model.safetensors", "0");
    ASSERT_FALSE(input.ok());
    EXPECT_NE(input.error().find("vocab.json and merges.txt"), std::string::npos) << input.error();
}

TEST(ModelInputCheckpoint, TooLongASentenceAndAMissingInputAreClearErrors)
{
    const Loaded loaded = load("bert_input", "0");
    ASSERT_TRUE(loaded.input);
    Config config;
    applyCheckpointLayerSettings(loaded.layer.settings, config);
    config.embeddings = EmbeddingKind::Model;
    config.sourceText = "the cat sat on the mat the cat sat on the mat the cat sat on the mat the cat sat on it";
    UserInputs inputs;
    inputs.weights = std::make_shared<const AttentionWeights>(loaded.layer.weights);
    inputs.modelInput = loaded.input;
    Expected<std::shared_ptr<const Result>> result = compute(config, inputs);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.error().find("The source sentence is 25 of the model's tokens; its positions go up to 24"),
              std::string::npos)
        << result.error();
    const std::vector<ValidationIssue> issues = modelInputIssues(config, inputs);
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues.front().field, ConfigField::Source);

    config.sourceText = "the cat";
    inputs.modelInput = nullptr;
    result = compute(config, inputs);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.error().find("File > Open Checkpoint"), std::string::npos) << result.error();

    // User embeddings for the sentence take precedence; the model input is then not needed.
    inputs.sourceEmbeddings = std::make_shared<const MatrixF>(MatrixF::Ones(3, 16));
    result = compute(config, inputs);
    EXPECT_TRUE(result.ok()) << (result ? "" : result.error());
}

TEST(ModelInputCheckpoint, ConfigReadsTheLayerNormEpsilon)
{
    Expected<CheckpointConfig> config = readCheckpointConfig(data("gpt2_input/config.json"));
    ASSERT_TRUE(config.ok());
    ASSERT_TRUE(config->layerNormEpsilon);
    EXPECT_DOUBLE_EQ(*config->layerNormEpsilon, 1e-5);
    ScratchDir scratch;
    std::ofstream(scratch.file("config.json")) << R"({"layer_norm_eps": -1})";
    config = readCheckpointConfig(scratch.file("config.json"));
    ASSERT_FALSE(config.ok());
    EXPECT_NE(config.error().find("'layer_norm_eps'"), std::string::npos) << config.error();
}

// A session keeps "model" and the checkpoint it came from; opening it reads the input again,
// or falls back to words with a message when the checkpoint is gone.
TEST(ModelInputCheckpoint, SessionsReadTheInputAgainOrFallBackToWords)
{
    Session session;
    session.config.embeddings = EmbeddingKind::Model;
    session.config.mode = AttentionMode::EncoderSelf;
    session.config.sourceText = "the cat";
    session.weightsProvenance.file = data("bert_input/model.safetensors");
    session.weightsProvenance.layer = "bert.encoder.layer.0.attention";
    Session restored = session;
    EXPECT_EQ(attachModelInputOrUseWords(restored), "");
    ASSERT_TRUE(restored.modelInput);
    EXPECT_EQ(restored.modelInput->recipe(), ModelInputRecipe::Bert);

    session.weightsProvenance.file = data("no_such_folder/model.safetensors");
    restored = session;
    const std::string notice = attachModelInputOrUseWords(restored);
    EXPECT_NE(notice.find("embeddings by word stand in"), std::string::npos) << notice;
    EXPECT_NE(notice.find("no_such_folder"), std::string::npos) << notice;
    EXPECT_EQ(restored.config.embeddings, EmbeddingKind::Word);
    EXPECT_FALSE(restored.modelInput);

    // Generated weights: nothing names a checkpoint.
    session.weightsProvenance = {};
    const Status status = attachModelInput(session);
    ASSERT_FALSE(status.ok());
    EXPECT_NE(status.error().find("checkpoint's attention layer"), std::string::npos) << status.error();
}

}  // namespace
}  // namespace qkv
