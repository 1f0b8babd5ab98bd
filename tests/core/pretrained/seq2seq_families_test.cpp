// The whole LLaMA-style, BART and Marian models from synthetic checkpoints
// (tests/data/pretrained/{llama,bart,marian}, written by make_seq2seq_fixtures.py; llama3 and
// qwen2 by make_2026_families.py) against an independent PyTorch forward of each family: every
// layer's attention, the hidden states, the logits, and a run with a head switched off.

#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/io/npy.hpp"
#include "core/pipeline/pretrained_run.hpp"
#include "core/pretrained/model_run.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "core/pretrained/teacher_forcing.hpp"
#include "support/matrix_assertions.hpp"
#include "support/pretrained_fixtures.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

// Our float forward against PyTorch's float64 on the float32 weights (issue 18: within 1e-4).
constexpr double kTolerance = 1e-4;

std::string folder(const std::string& family) { return pretrainedFixture(family); }

MatrixD npy(const std::string& family, const std::string& name)
{
    Expected<MatrixD> matrix = readNpyMatrixD(folder(family) + "/" + name);
    EXPECT_TRUE(matrix.ok()) << (matrix ? "" : matrix.error());
    return matrix ? *matrix : MatrixD();
}

nlohmann::json reference(const std::string& family)
{
    std::ifstream in(folder(family) + "/reference.json");
    return nlohmann::json::parse(in);
}

std::vector<std::int32_t> ids(const nlohmann::json& json) { return json.get<std::vector<std::int32_t>>(); }

PretrainedModel open(const std::string& family) { return openPretrainedFixture(family); }

// Every head's A_i stacked (h n_q x n_k), as the fixture stores them.
MatrixF stackedAttention(const AttentionResult& result)
{
    const Index h = result.headCount(), n_q = result.queryCount(), n_k = result.keyCount();
    MatrixF stacked(h * n_q, n_k);
    for (Index i = 0; i < h; ++i) stacked.middleRows(i * n_q, n_q) = result.heads[static_cast<std::size_t>(i)].attention;
    return stacked;
}

MatrixF stacked(const std::vector<MatrixF>& states, std::size_t count)
{
    MatrixF all(static_cast<Index>(count) * states.front().rows(), states.front().cols());
    for (std::size_t i = 0; i < count; ++i) all.middleRows(static_cast<Index>(i) * states.front().rows(), states.front().rows()) = states[i];
    return all;
}

ModelTokens tokensOf(const nlohmann::json& ref)
{
    ModelTokens tokens;
    if (ref.contains("ids")) tokens.ids = ids(ref["ids"]);
    else {
        tokens.ids = ids(ref["source_ids"]);
        tokens.decoderIds = ids(ref["decoder_input_ids"]);
    }
    return tokens;
}

// Every attention layer (names in model order, then A), the hidden states and the logits.
void expectMatchesReference(const std::string& family)
{
    const PretrainedModel model = open(family);
    ASSERT_GT(model.layerCount(), 0);
    const nlohmann::json ref = reference(family);
    Expected<ModelRun> run = runPretrainedModel(model, tokensOf(ref));
    ASSERT_TRUE(run.ok()) << run.error();
    const auto names = ref["layers"].get<std::vector<std::string>>();
    ASSERT_EQ(run->layers.size(), names.size());
    for (std::size_t k = 0; k < names.size(); ++k) {
        EXPECT_EQ(run->layer(static_cast<Index>(k)).layer.name, names[k]) << "model order";
        EXPECT_MATRIX_NEAR(stackedAttention(run->layer(static_cast<Index>(k)).attention),
                           npy(family, "attention_" + std::to_string(k) + ".npy"), kTolerance)
            << family << " layer " << k << " (" << names[k] << ")";
    }
    if (ref.contains("ids")) {
        // Hugging Face's hidden states: the last one after the final norm.
        const std::size_t L = run->hiddenStates.size() - 1;
        EXPECT_MATRIX_NEAR(stacked(run->hiddenStates, L), npy(family, "hidden_states.npy").topRows(L * run->hiddenStates[0].rows()), kTolerance);
        EXPECT_MATRIX_NEAR(run->hiddenStates.back(), npy(family, "final_hidden.npy"), kTolerance);
    } else {
        EXPECT_MATRIX_NEAR(stacked(run->hiddenStates, run->hiddenStates.size()), npy(family, "encoder_hidden_states.npy"), kTolerance);
        EXPECT_MATRIX_NEAR(stacked(run->decoderHiddenStates, run->decoderHiddenStates.size()),
                           npy(family, "decoder_hidden_states.npy"), kTolerance);
    }
    EXPECT_MATRIX_NEAR(run->logits, npy(family, "logits.npy"), kTolerance);
}

// The head the fixture switches off: the logits and the last layer's attention change as in
// the reference, and a run that reuses the full run recomputes only from that layer.
void expectAblationMatchesReference(const std::string& family)
{
    const PretrainedModel model = open(family);
    const nlohmann::json ref = reference(family);
    const ModelHead head{ref["ablate"][0].get<Index>(), ref["ablate"][1].get<Index>()};
    Expected<ModelRun> full = runPretrainedModel(model, tokensOf(ref));
    ASSERT_TRUE(full.ok()) << full.error();
    RunOptions options;
    options.ablatedHeads = {head};
    Expected<ModelRun> ablated = runPretrainedModel(model, tokensOf(ref), options);
    ASSERT_TRUE(ablated.ok()) << ablated.error();
    const Index last = model.layerCount() - 1;
    EXPECT_MATRIX_NEAR(ablated->logits, npy(family, "ablated_logits.npy"), kTolerance);
    EXPECT_MATRIX_NEAR(stackedAttention(ablated->layer(last).attention),
                       npy(family, "ablated_attention_" + std::to_string(last) + ".npy"), kTolerance);
    EXPECT_GT((ablated->logits - full->logits).cwiseAbs().maxCoeff(), 0.1f) << "the head matters";

    options.previous = std::make_shared<const ModelRun>(std::move(*full));
    Expected<ModelRun> reused = runPretrainedModel(model, tokensOf(ref), options);
    ASSERT_TRUE(reused.ok()) << reused.error();
    EXPECT_EQ(reused->firstRecomputedLayer, head.layer);
    EXPECT_TRUE(reused->logits == ablated->logits) << "re-running only the layers after the head gives the same bits";
}

TEST(LlamaModel, MatchesPyTorch) { expectMatchesReference("llama"); }
TEST(LlamaModel, HeadSwitchedOffMatchesPyTorch) { expectAblationMatchesReference("llama"); }
TEST(Llama3Model, MatchesPyTorch) { expectMatchesReference("llama3"); }
TEST(Llama3Model, HeadSwitchedOffMatchesPyTorch) { expectAblationMatchesReference("llama3"); }
TEST(Qwen2Model, MatchesPyTorch) { expectMatchesReference("qwen2"); }
TEST(Qwen2Model, HeadSwitchedOffMatchesPyTorch) { expectAblationMatchesReference("qwen2"); }
TEST(MistralModel, MatchesPyTorch) { expectMatchesReference("mistral"); }
TEST(MistralModel, HeadSwitchedOffMatchesPyTorch) { expectAblationMatchesReference("mistral"); }
TEST(Qwen3Model, MatchesPyTorch) { expectMatchesReference("qwen3"); }
TEST(Qwen3Model, HeadSwitchedOffMatchesPyTorch) { expectAblationMatchesReference("qwen3"); }
TEST(Gemma2Model, MatchesPyTorch) { expectMatchesReference("gemma2"); }
TEST(Gemma2Model, HeadSwitchedOffMatchesPyTorch) { expectAblationMatchesReference("gemma2"); }
TEST(Gemma3Model, MatchesPyTorch) { expectMatchesReference("gemma3"); }
TEST(Gemma3Model, HeadSwitchedOffMatchesPyTorch) { expectAblationMatchesReference("gemma3"); }
TEST(Phi3Model, MatchesPyTorch) { expectMatchesReference("phi3"); }
TEST(Phi3Model, HeadSwitchedOffMatchesPyTorch) { expectAblationMatchesReference("phi3"); }
TEST(PythiaModel, MatchesPyTorch) { expectMatchesReference("pythia"); }
TEST(PythiaModel, HeadSwitchedOffMatchesPyTorch) { expectAblationMatchesReference("pythia"); }
TEST(Olmo2Model, MatchesPyTorch) { expectMatchesReference("olmo2"); }
TEST(Olmo2Model, HeadSwitchedOffMatchesPyTorch) { expectAblationMatchesReference("olmo2"); }
TEST(BartModel, MatchesPyTorch) { expectMatchesReference("bart"); }
TEST(BartModel, EncoderHeadSwitchedOffReachesTheDecoder) { expectAblationMatchesReference("bart"); }
TEST(MarianModel, MatchesPyTorch) { expectMatchesReference("marian"); }
TEST(MarianModel, CrossAttentionHeadSwitchedOffMatchesPyTorch) { expectAblationMatchesReference("marian"); }

TEST(LlamaModel, RecipeIsPreRmsNormSwiGluRotaryWithGroupedQueries)
{
    const PretrainedModel model = open("llama");
    const FamilyRecipe& r = model.recipe;
    EXPECT_EQ(r.family, Family::Llama);
    EXPECT_EQ(r.norm, PretrainedNorm::RmsNorm);
    EXPECT_EQ(r.placement, NormPlacement::Pre);
    EXPECT_EQ(r.activation, BlockActivation::SwiGlu);
    EXPECT_EQ(r.positions, PretrainedPositions::Rotary);
    EXPECT_EQ(r.ropeBase, 500000.0) << "config.json's rope_theta";
    EXPECT_EQ(r.epsilon, 1e-5) << "config.json's rms_norm_eps";
    EXPECT_TRUE(r.finalNorm);
    EXPECT_FALSE(r.tiedReadout) << "lm_head.weight is stored";
    EXPECT_EQ(r.headCount, 4);
    EXPECT_EQ(r.keyValueHeadCount, 2);
    EXPECT_EQ(r.d_ff, 64);
    EXPECT_EQ(model.readoutMatrix().rows(), 40);
}

// LLaMA 3.2: rope_scaling of rope_type llama3 stretches the slow rotary pairs (the fixture puts a
// pair in each of its three regimes) and the readout is the token table.
TEST(Llama3Model, RopeScalingAndTiedEmbeddingsAreHuggingFacesOwn)
{
    const PretrainedModel model = open("llama3");
    const FamilyRecipe& r = model.recipe;
    EXPECT_EQ(r.family, Family::Llama);
    EXPECT_EQ(r.ropeScaling, (RopeScaling{RopeScalingKind::Llama3, 8.0, 1.0, 4.0, 64.0}));
    EXPECT_TRUE(r.tiedReadout) << "tie_word_embeddings: true and no lm_head.weight";
    const MatrixD expected = npy("llama3", "rotary_frequencies.npy");
    const Eigen::VectorXd theta = rotaryFrequencies(16, r.ropeBase, r.ropeScaling);
    ASSERT_EQ(theta.size(), expected.cols());
    for (Index j = 0; j < theta.size(); ++j) EXPECT_NEAR(theta(j) / expected(0, j), 1.0, 1e-12) << j;
    bool said = false;
    for (const std::string& note : model.notes) said = said || note.find("rope_scaling llama3 (factor 8") != std::string::npos;
    EXPECT_TRUE(said) << "the notes say the frequencies are stretched";
    // The scaling matters at these positions: unscaled frequencies miss the reference.
    PretrainedModel unscaled = open("llama3");
    unscaled.checkpoint.config.ropeScaling = {};  // what each layer's rotary reads (core/families/attention_rules.hpp)
    Expected<ModelRun> run = runPretrainedModel(unscaled, tokensOf(reference("llama3")));
    ASSERT_TRUE(run) << run.error();
    EXPECT_GT((run->layer(1).attention.heads[0].attention.cast<double>() - npy("llama3", "attention_1.npy").topRows(20)).cwiseAbs().maxCoeff(), 1e-3);
}

// Qwen2's attention has q, k and v biases and none on o_proj: zeros stand in for b^O.
TEST(Qwen2Model, QueryKeyValueBiasesWithoutAnOutputBias)
{
    const PretrainedModel model = open("qwen2");
    EXPECT_EQ(model.recipe.family, Family::Llama);
    EXPECT_EQ(model.recipe.ropeBase, 1e6);
    const AttentionWeights& attention = model.sublayer(0).attention;
    ASSERT_TRUE(attention.hasBias());
    EXPECT_GT(attention.queryBias->cwiseAbs().maxCoeff(), 0.0f);
    EXPECT_EQ(attention.outputBias->cwiseAbs().maxCoeff(), 0.0f);
}

// Mistral's sliding_window masks every key older than the window, in the run and in the layer
// views (their Config), and the notes say so.
TEST(MistralModel, TheSlidingWindowMasksOlderKeysEverywhere)
{
    const auto model = std::make_shared<const PretrainedModel>(open("mistral"));
    EXPECT_EQ(model->recipe.slidingWindow, 4);
    Expected<ModelRun> run = runPretrainedModel(*model, tokensOf(reference("mistral")));
    ASSERT_TRUE(run) << run.error();
    for (Index l = 0; l < model->layerCount(); ++l) {
        const AttentionResult& attention = run->layer(l).attention;
        EXPECT_EQ(attention.mask.window, 4);
        EXPECT_TRUE(attention.mask.masked(11, 7));
        EXPECT_FALSE(attention.mask.masked(11, 8));
        for (const HeadAttention& head : attention.heads) EXPECT_EQ(head.attention.row(11).head(8).cwiseAbs().maxCoeff(), 0.0f);
        const Config layerConfig = pretrainedLayerConfig(*model, run->layer(l), model->sublayer(l).attention, {}, Config{});
        EXPECT_EQ(layerConfig.conventions.slidingWindow, 4);
    }
    bool said = false;
    for (const std::string& note : model->notes) said = said || note.find("sliding_window = 4") != std::string::npos;
    EXPECT_TRUE(said);
}

// Qwen3: q_norm and k_norm (one head's d_k scales, shared by the heads) normalise q and k before
// the rotation, and its heads are wider than d_model / h; without the norms the reference is missed.
TEST(Qwen3Model, QueryKeyNormsOnHeadsWiderThanDModelOverH)
{
    PretrainedModel model = open("qwen3");
    const AttentionWeights& attention = model.sublayer(0).attention;
    ASSERT_TRUE(attention.hasQueryKeyNorm());
    EXPECT_EQ(attention.queryNorm->size(), 16);
    EXPECT_EQ(attention.keyNorm->size(), 16);
    EXPECT_EQ(attention.queryKeyNormEpsilon, 1e-6f) << "config.json's rms_norm_eps";
    EXPECT_EQ(attention.grouping(4).d_k, 16);
    EXPECT_TRUE(model.recipe.tiedReadout);
    bool said = false;
    for (const std::string& note : model.notes) said = said || note.find("q_norm.weight") != std::string::npos;
    EXPECT_TRUE(said);
    for (Index l = 0; l < model.layerCount(); ++l) {
        auto& weights = const_cast<AttentionWeights&>(model.sublayer(l).attention);
        weights.queryNorm.reset();
        weights.keyNorm.reset();
    }
    Expected<ModelRun> run = runPretrainedModel(model, tokensOf(reference("qwen3")));
    ASSERT_TRUE(run) << run.error();
    EXPECT_GT((stackedAttention(run->layer(0).attention).cast<double>() - npy("qwen3", "attention_0.npy")).cwiseAbs().maxCoeff(), 1e-3);
}

TEST(Seq2SeqModel, RecipesFollowConfig)
{
    const PretrainedModel bart = open("bart");
    EXPECT_EQ(bart.recipe.family, Family::Bart);
    EXPECT_TRUE(bart.recipe.encoderDecoder());
    EXPECT_EQ(bart.recipe.placement, NormPlacement::Post);
    EXPECT_EQ(bart.recipe.activation, BlockActivation::GeluErf);
    EXPECT_EQ(bart.recipe.positions, PretrainedPositions::Learned);
    EXPECT_EQ(bart.recipe.positionOffset, 2);
    EXPECT_EQ(bart.recipe.positionCount, 16);
    EXPECT_EQ(bart.recipe.embeddingScale, 1.0f) << "scale_embedding false";
    EXPECT_TRUE(bart.recipe.embeddingNorm) << "layernorm_embedding";
    EXPECT_EQ(bart.recipe.feedForwardWidth(ModelStack::Encoder), 64);
    EXPECT_EQ(bart.recipe.feedForwardWidth(ModelStack::Decoder), 48);
    EXPECT_EQ(bart.layersInModelOrder.front().headCount, 4);
    EXPECT_EQ(bart.layersInModelOrder.back().headCount, 2) << "decoder_attention_heads";
    EXPECT_EQ(bart.recipe.decoderStartTokenId, 2);

    const PretrainedModel marian = open("marian");
    EXPECT_EQ(marian.recipe.family, Family::Marian);
    EXPECT_EQ(marian.recipe.activation, BlockActivation::Silu) << "\"swish\"";
    EXPECT_EQ(marian.recipe.positions, PretrainedPositions::Sinusoidal);
    EXPECT_FLOAT_EQ(marian.recipe.embeddingScale, std::sqrt(32.0f));
    EXPECT_FALSE(marian.recipe.embeddingNorm);
    EXPECT_EQ(marian.recipe.positionCount, 24);
    EXPECT_EQ(marian.recipe.decoderStartTokenId, 47) << "decoder_start_token_id = pad_token_id";
    EXPECT_EQ(marian.readout.bias.size(), 48) << "final_logits_bias";
}

TEST(Seq2SeqModel, TeacherForcingShiftsTheTargetRightAfterTheStartToken)
{
    for (const char* family : {"bart", "marian"}) {
        const PretrainedModel model = open(family);
        const nlohmann::json ref = reference(family);
        Expected<std::vector<std::int32_t>> decoderIds = teacherForcedDecoderIds(model.recipe, ids(ref["target_ids"]));
        ASSERT_TRUE(decoderIds.ok()) << decoderIds.error();
        EXPECT_EQ(*decoderIds, ids(ref["decoder_input_ids"])) << family;
    }
    const PretrainedModel llama = open("llama");
    EXPECT_FALSE(teacherForcedDecoderIds(llama.recipe, {3, 4}).ok()) << "a decoder-only model has no decoder input";
}

TEST(Seq2SeqModel, RefusesInputsTheModelCannotRead)
{
    const PretrainedModel marian = open("marian");
    ModelTokens tooLong{std::vector<std::int32_t>(25, 5), {47, 3}};
    Expected<ModelRun> run = runPretrainedModel(marian, tooLong);
    ASSERT_FALSE(run.ok());
    EXPECT_NE(run.error().find("24"), std::string::npos) << run.error();
    Expected<ModelRun> noTarget = runPretrainedModel(marian, ModelTokens{{5, 6, 0}, {}});
    EXPECT_FALSE(noTarget.ok());
    Expected<ModelRun> badId = runPretrainedModel(marian, ModelTokens{{5, 48}, {47}});
    ASSERT_FALSE(badId.ok());
    EXPECT_NE(badId.error().find("48"), std::string::npos) << badId.error();
}

}  // namespace
}  // namespace qkv
