// What each 2024-2026 block reads from its checkpoint (the fixtures of make_gemma_fixtures.py and
// make_fused_families.py; their PyTorch references are checked in seq2seq_families_test.cpp):
// Gemma's zero-centred norms and layer pattern, Phi-3's and GPT-NeoX's fused projections,
// GPT-NeoX's parallel residual and partial rotary, OLMo 2's norms. And the one rule both paths
// follow: a layer loaded alone, or shown from a model run, computes exactly the attention the
// model's run computed.

#include <atomic>
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "core/families/attention_rules.hpp"
#include "core/modelfiles/tensor_reading.hpp"
#include "core/pipeline/compute.hpp"
#include "core/pipeline/layer_input.hpp"
#include "core/pipeline/pretrained_run.hpp"
#include "core/pretrained/model_run.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "support/matrix_assertions.hpp"
#include "support/pretrained_fixtures.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

std::string folder(const std::string& family) { return pretrainedFixture(family); }

PretrainedModel open(const std::string& family) { return openPretrainedFixture(family); }

// A stored tensor as a float matrix (vectors as one row).
MatrixF stored(const PretrainedModel& model, const std::string& name)
{
    Expected<checkpoint_detail::LoadedTensors> loaded = checkpoint_detail::readTensors(model.checkpoint.tensors, {name});
    EXPECT_TRUE(loaded.ok()) << (loaded ? "" : loaded.error());
    return loaded ? loaded->at(name) : MatrixF();
}

bool noted(const std::vector<std::string>& notes, const std::string& part)
{
    for (const std::string& note : notes)
        if (note.find(part) != std::string::npos) return true;
    return false;
}

ModelRun run(const PretrainedModel& model, std::vector<std::int32_t> ids)
{
    Expected<ModelRun> result = runPretrainedModel(model, ModelTokens{std::move(ids), {}});
    EXPECT_TRUE(result.ok()) << (result ? "" : result.error());
    return result ? std::move(*result) : ModelRun();
}

const std::vector<std::int32_t> kIds{1, 5, 9, 3, 5, 9, 12, 7, 3, 5, 2, 8};

// Every layer of the model: its Config (pretrainedLayerConfig) computes the attention the run
// computed, and so does the layer loaded alone from the checkpoint with its settings applied.
void expectLayersAgreeWithTheirRun(const std::string& family)
{
    const PretrainedModel model = open(family);
    const ModelRun whole = run(model, kIds);
    ASSERT_EQ(static_cast<Index>(whole.layers.size()), model.layerCount());
    for (Index l = 0; l < model.layerCount(); ++l) {
        const LayerRun& layer = whole.layer(l);
        const AttentionWeights& weights = model.sublayer(l).attention;
        const Config shown = pretrainedLayerConfig(model, layer, weights, {}, Config{});
        const AttentionResult again = multiHeadAttentionForward(layer.queryInput, layer.keyValueInput, weights,
                                                                weights.grouping(shown.headCount), attentionOptions(shown));
        for (Index i = 0; i < again.headCount(); ++i)
            EXPECT_TRUE(again.heads[static_cast<std::size_t>(i)].attention ==
                        layer.attention.heads[static_cast<std::size_t>(i)].attention)
                << family << " layer " << l << " head " << i << ": the shown layer's Config";

        Expected<CheckpointLayerWeights> alone = loadCheckpointLayer(model.checkpoint, layer.layer);
        ASSERT_TRUE(alone.ok()) << alone.error();
        Config loaded;
        applyCheckpointLayerSettings(alone->settings, loaded);
        EXPECT_EQ(loaded.conventions.slidingWindow, shown.conventions.slidingWindow) << family << " layer " << l;
        EXPECT_EQ(loaded.conventions.ropeBase, shown.conventions.ropeBase) << family << " layer " << l;
        EXPECT_EQ(loaded.conventions.ropeScaling, shown.conventions.ropeScaling) << family << " layer " << l;
        EXPECT_EQ(loaded.conventions.rotaryDims, shown.conventions.rotaryDims) << family << " layer " << l;
        EXPECT_EQ(loaded.conventions.scoreDim, shown.conventions.scoreDim) << family << " layer " << l;
        EXPECT_EQ(loaded.conventions.scoreSoftCap, shown.conventions.scoreSoftCap) << family << " layer " << l;
        EXPECT_TRUE(alone->weights.queryProjection == weights.queryProjection) << family << " layer " << l;
        const AttentionResult single = multiHeadAttentionForward(
            layer.queryInput, layer.keyValueInput, alone->weights, alone->weights.grouping(loaded.headCount),
            attentionOptions(loaded));
        EXPECT_MATRIX_NEAR(single.heads.back().attention, layer.attention.heads.back().attention, 0.0)
            << family << " layer " << l << ": loaded alone";
    }
}

TEST(BlockFamilies, ALayerShownOrLoadedAloneComputesWhatItsRunComputed)
{
    for (const char* family : {"gemma2", "gemma3", "phi3", "pythia", "olmo2", "mistral", "llama3", "qwen3"})
        expectLayersAgreeWithTheirRun(family);
}

// Gemma 2: (1 + w) norms, sqrt(d_model) embeddings, GeGLU, soft caps, query_pre_attn_scalar and
// sliding even layers (no layer_types in its config.json).
TEST(Gemma2Model, ItsConventionsComeFromItsConfig)
{
    const PretrainedModel model = open("gemma2");
    const FamilyRecipe& r = model.recipe;
    EXPECT_EQ(r.family, Family::Gemma2);
    EXPECT_EQ(r.normWeightOffset, 1.0f);
    EXPECT_EQ(r.embeddingScale, static_cast<float>(std::sqrt(32.0)));
    EXPECT_EQ(r.activation, BlockActivation::GeluTanh);
    EXPECT_TRUE(r.gatedFeedForward);
    EXPECT_EQ(r.finalLogitSoftCap, 10.0);
    EXPECT_TRUE(r.tiedReadout);
    const MatrixF w = stored(model, "model.layers.0.post_attention_layernorm.weight");
    EXPECT_TRUE(model.sublayer(0).outputNorm.gamma == RowVectorF(w.array() + 1.0f)) << "the scale is 1 + w";
    const ModelRun whole = run(model, kIds);
    for (Index l = 0; l < model.layerCount(); ++l) {
        const AttentionResult& a = whole.layer(l).attention;
        EXPECT_EQ(a.mask.window, l % 2 == 0 ? 4 : 0) << "even layers slide (Gemma2Config), layer " << l;
        EXPECT_EQ(a.scoreSoftCap, 2.0);
        EXPECT_NEAR(a.scoreDivisor, std::sqrt(24.0), 1e-12) << "query_pre_attn_scalar, not d_k = 16";
    }
    for (float logit : std::vector<float>(whole.logits.data(), whole.logits.data() + whole.logits.size()))
        EXPECT_LT(std::abs(logit), 10.0f) << "the final soft cap";
    EXPECT_TRUE(noted(model.notes, "layers 0 and 2 slide"));
}

// Gemma 3: q/k norms with (1 + w) scales, layer_types, local layers on their own base.
TEST(Gemma3Model, LocalLayersRotateWithTheirOwnBaseAndGlobalOnesAreScaled)
{
    const PretrainedModel model = open("gemma3");
    EXPECT_EQ(model.recipe.family, Family::Gemma3);
    const MatrixF q = stored(model, "model.layers.1.self_attn.q_norm.weight");
    EXPECT_TRUE(*model.sublayer(1).attention.queryNorm == RowVectorF(q.array() + 1.0f));
    const ModelRun whole = run(model, kIds);
    const CheckpointConfig& c = model.checkpoint.config;
    for (Index l = 0; l < model.layerCount(); ++l) {
        const bool global = c.layerTypes[static_cast<std::size_t>(l)] == "full_attention";
        const AttentionOptions o = modelLayerAttentionOptions(model, ModelStack::Decoder, l, 16, false);
        EXPECT_EQ(o.mask.window, global ? 0 : 4) << l;
        EXPECT_EQ(o.conventions.ropeBase, global ? *c.ropeTheta : 10000.0) << l;
        EXPECT_EQ(o.conventions.ropeScaling.kind, global ? RopeScalingKind::Linear : RopeScalingKind::None) << l;
        EXPECT_EQ(o.conventions.scoreSoftCap, 0.0) << "Gemma 3 has no score cap";
        EXPECT_EQ(whole.layer(l).attention.mask.window, o.mask.window);
    }
    Expected<CheckpointLayerWeights> last = loadCheckpointLayer(model.checkpoint, model.layersInModelOrder.back());
    ASSERT_TRUE(last.ok()) << last.error();
    EXPECT_TRUE(noted(last->notes, "one of the model's global layers"));
    EXPECT_TRUE(noted(last->notes, "1 + w"));
}

// Phi-3: qkv_proj holds Q's rows, then K's, then V's; gate_up_proj the gate's, then the up's.
TEST(Phi3Model, FusedProjectionsAreSplitInTheirOrder)
{
    const PretrainedModel model = open("phi3");
    EXPECT_EQ(model.recipe.family, Family::Phi3);
    const MatrixF qkv = stored(model, "model.layers.0.self_attn.qkv_proj.weight");  // (h + 2 g) d_k x d_model
    const AttentionWeights& w = model.sublayer(0).attention;
    const Index hd = w.queryProjection.cols(), gd = w.keyProjection.cols();
    EXPECT_EQ(qkv.rows(), hd + 2 * gd);
    EXPECT_TRUE(w.queryProjection == MatrixF(qkv.topRows(hd).transpose()));
    EXPECT_TRUE(w.keyProjection == MatrixF(qkv.middleRows(hd, gd).transpose()));
    EXPECT_TRUE(w.valueProjection == MatrixF(qkv.bottomRows(gd).transpose()));
    const MatrixF gateUp = stored(model, "model.layers.0.mlp.gate_up_proj.weight");  // 2 d_ff x d_model
    const Index d_ff = model.recipe.d_ff;
    const FeedForwardWeights& ff = model.decoder.blocks.front().feedForward;
    EXPECT_TRUE(ff.gate == MatrixF(gateUp.topRows(d_ff).transpose()));
    EXPECT_TRUE(ff.in == MatrixF(gateUp.bottomRows(d_ff).transpose()));
    EXPECT_EQ(model.recipe.activation, BlockActivation::SwiGlu);
    const AttentionOptions o = modelLayerAttentionOptions(model, ModelStack::Decoder, 1, w.grouping(4).d_k, false);
    EXPECT_EQ(o.conventions.rotaryDims, 4) << "partial_rotary_factor 0.5 of d_k 8";
    EXPECT_EQ(o.mask.window, 5) << "Phi-3's sliding_window, every layer";
    EXPECT_TRUE(noted(model.notes, "sliding_window = 5: each query sees only its 5 latest keys"))
        << "the model's note, with the partial rotary beside it";
}

// GPT-NeoX (Pythia): query_key_value per head, partial rotary, parallel residual, and the
// checkpoint's non-weight buffers (attention.bias, masked_bias, rotary_emb.inv_freq) ignored.
TEST(PythiaModel, PerHeadFusedProjectionsPartialRotaryAndAParallelResidual)
{
    const PretrainedModel model = open("pythia");
    const FamilyRecipe& r = model.recipe;
    EXPECT_EQ(r.family, Family::GptNeox);
    EXPECT_TRUE(r.parallelResidual);
    EXPECT_EQ(r.norm, PretrainedNorm::LayerNorm);
    EXPECT_FALSE(r.tiedReadout) << "embed_out";
    const MatrixF qkv = stored(model, "gpt_neox.layers.1.attention.query_key_value.weight");  // 3 d_model x d_model
    const AttentionWeights& w = model.sublayer(1).attention;
    const Index d_k = w.grouping(model.layersInModelOrder[1].headCount).d_k;
    // Head 1's k is rows [3 d_k + d_k, 3 d_k + 2 d_k) of the fused weight.
    EXPECT_TRUE(w.keyProjection.middleCols(d_k, d_k) == MatrixF(qkv.middleRows(4 * d_k, d_k).transpose()));
    EXPECT_TRUE(w.valueProjection.leftCols(d_k) == MatrixF(qkv.middleRows(2 * d_k, d_k).transpose()));
    const ModelRun whole = run(model, kIds);
    EXPECT_EQ(whole.layer(0).attention.rotaryDims, d_k / 4) << "rotary_pct 0.25";
    // The components past the rotated ones carry no position: q as projected.
    const AttentionResult& a = whole.layer(0).attention;
    EXPECT_TRUE(a.query.rightCols(d_k - d_k / 4) == a.queryBeforeRotation.rightCols(d_k - d_k / 4));
    EXPECT_FALSE(a.query.leftCols(d_k / 4) == a.queryBeforeRotation.leftCols(d_k / 4));
}

// OLMo 2: q_norm and k_norm over the whole projection; norms on the sublayers' outputs only.
TEST(Olmo2Model, WholeProjectionNormsAndNormsAfterEachSublayer)
{
    const PretrainedModel model = open("olmo2");
    EXPECT_EQ(model.recipe.family, Family::Olmo2);
    const AttentionWeights& w = model.sublayer(0).attention;
    ASSERT_TRUE(w.hasQueryKeyNorm());
    EXPECT_EQ(w.queryNorm->size(), w.queryProjection.cols()) << "h d_k";
    EXPECT_EQ(w.keyNorm->size(), w.keyProjection.cols()) << "g d_k";
    const BlockWeights& block = model.decoder.blocks.front();
    EXPECT_FALSE(block.selfAttention.norm.present());
    EXPECT_TRUE(block.selfAttention.outputNorm.present());
    EXPECT_FALSE(block.feedForwardNorm.present());
    EXPECT_TRUE(block.feedForwardOutputNorm.present());
    const ModelRun whole = run(model, kIds);
    EXPECT_TRUE(whole.layer(0).queryInput == whole.hiddenStates.front()) << "nothing normalises the attention's input";
}

// A load reports each block once (total: every stack's blocks) and a stop ends it before its
// next block with an error loadStopped() knows; the layer's input says the same.
TEST(ModelLoadProgress, EveryBlockIsCountedAndAStopEndsTheLoad)
{
    std::vector<std::pair<Index, Index>> reports;  // report calls come one at a time
    LoadProgress counted{[&](Index done, Index total) { reports.emplace_back(done, total); }, nullptr};
    Expected<PretrainedModel> bart = openPretrainedModel(folder("bart"), {}, WeightResidency::Automatic, counted);
    ASSERT_TRUE(bart.ok()) << bart.error();
    const Index blocks = bart->recipe.encoderLayerCount + bart->recipe.decoderLayerCount;
    ASSERT_EQ(static_cast<Index>(reports.size()), blocks);
    for (std::size_t i = 0; i < reports.size(); ++i)
        EXPECT_EQ(reports[i], (std::pair<Index, Index>{static_cast<Index>(i) + 1, blocks})) << "in order, each once";

    std::atomic<bool> stop{true};
    Expected<PretrainedModel> stopped =
        openPretrainedModel(folder("gemma2"), {}, WeightResidency::Automatic, LoadProgress{{}, &stop});
    ASSERT_FALSE(stopped.ok());
    EXPECT_TRUE(loadStopped(stopped.error())) << stopped.error();
    // Stopped after its first block: the blocks not begun are not read.
    std::atomic<bool> later{false};
    Index read = 0;
    LoadProgress afterOne{[&](Index done, Index) { read = done, later = true; }, &later};
    Expected<PretrainedModel> partly = openPretrainedModel(folder("gemma2"), {}, WeightResidency::Automatic, afterOne);
    ASSERT_FALSE(partly.ok());
    EXPECT_TRUE(loadStopped(partly.error())) << partly.error();
    EXPECT_LT(read, 4) << "gemma2 has 4 blocks; at most one per thread was under way";
    EXPECT_FALSE(loadStopped("a file that cannot be read"));

    // A later layer's input needs the model (BERT's fixture has its tokenizer files): stopped too.
    Expected<Checkpoint> checkpoint = openCheckpoint(folder("bert"));
    ASSERT_TRUE(checkpoint.ok());
    Expected<std::shared_ptr<const ModelInput>> input =
        loadLayerInput(*checkpoint, checkpoint->layers.back(), nullptr, LoadProgress{{}, &stop});
    ASSERT_FALSE(input.ok());
    EXPECT_TRUE(loadStopped(input.error())) << input.error();
    // Without tokenizer files no sentence reaches the model: it is not read at all.
    Expected<Checkpoint> plain = openCheckpoint(folder("gemma2"));
    ASSERT_TRUE(plain.ok());
    Index blocksRead = 0;
    const LoadProgress counting{[&](Index done, Index) { blocksRead = done; }, nullptr};
    Expected<std::shared_ptr<const ModelInput>> none = loadLayerInput(*plain, plain->layers.back(), nullptr, counting);
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.error().find("no tokenizer files"), std::string::npos) << none.error();
    EXPECT_EQ(blocksRead, 0);
}

// A fused Q-K-V weight whose rows do not split into h query heads and g key/value heads is refused
// before a byte is read, naming the tensor and the split it expected.
TEST(FusedProjections, RowsThatDoNotSplitAreRefusedNamingTheTensor)
{
    Expected<Checkpoint> phi3 = openCheckpoint(folder("phi3"));
    ASSERT_TRUE(phi3.ok()) << phi3.error();
    const std::string qkv = "model.layers.0.self_attn.qkv_proj.weight";
    phi3->tensors.at(qkv).shape[0] += 1;  // an odd number left for K and V
    Expected<CheckpointLayerWeights> odd = loadCheckpointLayer(*phi3, phi3->layers.front());
    ASSERT_FALSE(odd.ok());
    EXPECT_NE(odd.error().find(qkv), std::string::npos) << odd.error();
    EXPECT_NE(odd.error().find("h d_k + 2 g d_k"), std::string::npos) << odd.error();
    Expected<Checkpoint> pythia = openCheckpoint(folder("pythia"));
    ASSERT_TRUE(pythia.ok()) << pythia.error();
    const std::string fused = "gpt_neox.layers.0.attention.query_key_value.weight";
    pythia->tensors.at(fused).shape[0] -= 2;
    Expected<CheckpointLayerWeights> short_ = loadCheckpointLayer(*pythia, pythia->layers.front());
    ASSERT_FALSE(short_.ok());
    EXPECT_NE(short_.error().find("3 h d_k"), std::string::npos) << short_.error();
}

TEST(LayerConventions, LayerTypesOrTheFamiliesDefaultsSayWhichLayersSlide)
{
    CheckpointConfig c;
    c.slidingWindow = 512;
    c.modelType = "gemma3_text";
    c.ropeTheta = 1e6;
    c.ropeLocalBase = 1e4;
    for (Index b = 0; b < 12; ++b) {
        Expected<AttentionConventions> own = layerAttentionConventions(c, b, 256);
        ASSERT_TRUE(own.ok());
        EXPECT_EQ(own->slidingWindow, (b + 1) % 6 == 0 ? 0 : 512) << "sliding_window_pattern 6, block " << b;
        EXPECT_EQ(own->ropeBase, (b + 1) % 6 == 0 ? 1e6 : 1e4);
    }
    c.slidingWindowPattern = 2;
    EXPECT_EQ(layerAttentionConventions(c, 1, 256)->slidingWindow, 0);
    c.modelType = "mistral";
    EXPECT_EQ(layerAttentionConventions(c, 1, 256)->slidingWindow, 512) << "every layer";
    c.layerTypes = {"full_attention", "sliding_attention"};
    EXPECT_EQ(layerAttentionConventions(c, 0, 256)->slidingWindow, 0);
    EXPECT_EQ(layerAttentionConventions(c, 1, 256)->slidingWindow, 512);
    Expected<AttentionConventions> past = layerAttentionConventions(c, 2, 256);
    ASSERT_FALSE(past.ok());
    EXPECT_NE(past.error().find("layer_types"), std::string::npos) << past.error();
    c.layerTypes = {"chunked_attention", "full_attention"};
    Expected<AttentionConventions> unknown = layerAttentionConventions(c, 0, 256);
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().find("chunked_attention"), std::string::npos) << unknown.error();
    c.layerTypes.clear();
    c.partialRotary = 0.3;  // 0.3 x 10 = 3 components: not pairs
    Expected<AttentionConventions> odd = layerAttentionConventions(c, 0, 10);
    ASSERT_FALSE(odd.ok());
    EXPECT_NE(odd.error().find("even"), std::string::npos) << odd.error();
    EXPECT_EQ(blockNumberOf("model.layers.12.self_attn"), 12);
    EXPECT_EQ(blockNumberOf("gpt_neox.layers.3.attention"), 3);
    EXPECT_EQ(blockNumberOf("attn"), 0);
}

}  // namespace
}  // namespace qkv
