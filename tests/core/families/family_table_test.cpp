// The family table (family_table.hpp): every family's row is complete, a row that lacks a name is
// refused naming the column, and against each family's synthetic checkpoint in
// tests/data/pretrained every tensor the row names exists with the shape the loader expects; a
// file without one of them is refused with a message naming it.

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/families/family_table.hpp"
#include "core/families/family_tensors.hpp"
#include "core/pretrained/checkpoint_recipe.hpp"
#include "core/pretrained/pretrained_model.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

using Shape = std::vector<std::size_t>;

constexpr std::array kAllFamilies{Family::Bert,  Family::Roberta, Family::DistilBert, Family::Gpt2,
                                  Family::Llama, Family::Qwen3,   Family::Bart,       Family::Marian,
                                  Family::T5,    Family::PyTorch, Family::Gemma2,     Family::Gemma3,
                                  Family::Phi3,  Family::GptNeox, Family::Olmo2,      Family::Trained};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(FamilyRows, EveryFamilyHasOneCompleteRow)
{
    ASSERT_EQ(kFamilyRows.size(), kAllFamilies.size());
    for (const Family family : kAllFamilies) {
        const FamilyRow& row = familyRow(family);
        EXPECT_EQ(row.value, family) << row.name;
        EXPECT_EQ(familyName(family), row.name);
        const Status complete = checkFamilyRow(row);
        EXPECT_TRUE(complete.ok()) << complete.error();
    }
}

TEST(FamilyRows, RowsOfOneLayerFamilyShareWhatIsReadBeforeOneIsChosen)
{
    for (const FamilyRow& a : kFamilyRows)
        for (const FamilyRow& b : kFamilyRows) {
            if (a.layers != b.layers) continue;
            EXPECT_EQ(a.block.attention, b.block.attention) << a.name << " / " << b.name;
            EXPECT_EQ(a.stacks, b.stacks) << a.name << " / " << b.name;
            EXPECT_EQ(a.absolutePositionsOnly, b.absolutePositionsOnly) << a.name << " / " << b.name;
        }
}

std::string rowError(const FamilyRow& row)
{
    const Status status = checkFamilyRow(row);
    EXPECT_FALSE(status.ok()) << row.name;
    return status ? std::string() : status.error();
}

TEST(FamilyRows, ARowWithAMissingNameIsRefusedNamingTheColumn)
{
    FamilyRow gpt2 = familyRow(Family::Gpt2);
    gpt2.block.feedForwardOut = "";
    const std::string out = rowError(gpt2);
    EXPECT_TRUE(contains(out, "GPT-2")) << out;
    EXPECT_TRUE(contains(out, "block.feedForwardOut")) << out;

    FamilyRow bart = familyRow(Family::Bart);
    bart.block.crossAttentionNorm = "";
    EXPECT_TRUE(contains(rowError(bart), "block.crossAttentionNorm"));

    FamilyRow bert = familyRow(Family::Bert);
    bert.readout.transform = "";  // a masked-LM head needs its transform
    EXPECT_TRUE(contains(rowError(bert), "readout.transform"));
    bert = familyRow(Family::Bert);
    bert.embeddings.tokens = "";
    EXPECT_TRUE(contains(rowError(bert), "embeddings.tokens"));
    bert = familyRow(Family::Bert);
    bert.embeddings.positions = "";  // learned positions need their table
    EXPECT_TRUE(contains(rowError(bert), "embeddings.positions"));
}

TEST(FamilyRows, PatternsThatDoNotFitTheirStacksAreRefused)
{
    FamilyRow llama = familyRow(Family::Llama);
    llama.block.feedForwardIn = "{p}layers.mlp.up_proj";  // no block number
    EXPECT_TRUE(contains(rowError(llama), "block.feedForwardIn"));
    llama = familyRow(Family::Llama);
    llama.finalNorm = "{p}{s}.norm";  // one stack: no {s}
    EXPECT_TRUE(contains(rowError(llama), "finalNorm"));
    llama = familyRow(Family::Llama);
    llama.embeddings.tokens = "{prefix}embed_tokens.weight";
    EXPECT_TRUE(contains(rowError(llama), "unknown placeholder"));
    llama = familyRow(Family::Llama);
    llama.block.crossAttention = "{p}layers.{b}.cross_attn";  // only an encoder-decoder has one
    EXPECT_TRUE(contains(rowError(llama), "block.crossAttention"));
    FamilyRow phi3 = familyRow(Family::Phi3);
    phi3.block.feedForwardIn = "{p}layers.{b}.mlp.up_proj";  // fused and separate at once
    EXPECT_TRUE(contains(rowError(phi3), "block.feedForwardGateUp"));
    FamilyRow olmo2 = familyRow(Family::Olmo2);
    olmo2.block.attentionOutputNorm = "";  // a sublayer needs a norm somewhere
    EXPECT_TRUE(contains(rowError(olmo2), "block.attentionNorm"));
    olmo2 = familyRow(Family::Olmo2);
    olmo2.placement = NormPlacement::Post;
    EXPECT_TRUE(contains(rowError(olmo2), "pre-norm"));
}

TEST(FamilyRows, TensorNamesFillThePatterns)
{
    EXPECT_EQ(tensorName("{p}{s}.layers.{b}.fc1", "model.", ModelStack::Decoder, 3), "model.decoder.layers.3.fc1");
    EXPECT_EQ(tensorName("{p}h.{b}.ln_1", "", ModelStack::Decoder, 11), "h.11.ln_1");
    EXPECT_EQ(tensorName("lm_head.weight", "model.", ModelStack::Encoder), "lm_head.weight");
    EXPECT_EQ(tensorName("", "bert.", ModelStack::Encoder), "");
}

// A tensor the row names for a checkpoint, the shape the loader expects, and whether a file
// without it is refused (optional: biases, and the readout's parts, whose presence chooses the head).
struct NamedTensor {
    std::string name;
    Shape shape;
    bool required = true;
};

class RowTensors {
public:
    RowTensors(const Checkpoint& checkpoint, const FamilyRecipe& recipe) : checkpoint_(checkpoint), recipe_(recipe) {}

    void norm(const std::string& module)
    {
        if (module.empty()) return;
        const auto d = static_cast<std::size_t>(recipe_.d_model);
        add(parameter(module, "weight", "gamma"), {d});
        if (recipe_.norm == PretrainedNorm::LayerNorm) add(parameter(module, "bias", "beta"), {d});
    }
    void linear(const std::string& module, std::size_t d_in, std::size_t d_out, LinearLayout layout,
                bool required = true)
    {
        if (module.empty()) return;
        add(module + ".weight", layout == LinearLayout::OutByIn ? Shape{d_out, d_in} : Shape{d_in, d_out}, required);
        if (checkpoint_.tensors.contains(module + ".bias")) add(module + ".bias", {d_out}, false);
    }
    void add(const std::string& name, Shape shape, bool required = true) { tensors.push_back({name, shape, required}); }

    std::vector<NamedTensor> tensors;

private:
    std::string parameter(const std::string& module, const char* modern, const char* older) const
    {
        const std::string name = module + "." + modern;
        return checkpoint_.tensors.contains(name) || !checkpoint_.tensors.contains(module + "." + older)
                   ? name
                   : module + "." + older;
    }
    const Checkpoint& checkpoint_;
    const FamilyRecipe& recipe_;
};

void addStack(RowTensors& list, const Checkpoint& checkpoint, const FamilyRecipe& r, ModelStack stack, Index blocks)
{
    const auto d = static_cast<std::size_t>(r.d_model);
    const auto d_ff = static_cast<std::size_t>(r.feedForwardWidth(stack));
    const EmbeddingTensorNames embeddings = embeddingTensorNames(r, stack);
    list.add(embeddings.tokens, {static_cast<std::size_t>(r.vocabularySize), d});
    if (!embeddings.positions.empty()) {
        const auto it = checkpoint.tensors.find(embeddings.positions);
        const std::size_t rows = it == checkpoint.tensors.end() ? 0 : it->second.shape.front();
        EXPECT_GE(static_cast<Index>(rows), r.positionOffset + r.positionCount) << embeddings.positions;
        list.add(embeddings.positions, {rows, d});
    }
    if (!embeddings.tokenTypes.empty()) {
        const auto it = checkpoint.tensors.find(embeddings.tokenTypes);
        list.add(embeddings.tokenTypes, {it == checkpoint.tensors.end() ? 0 : it->second.shape.front(), d});
    }
    list.norm(embeddings.norm);
    for (Index b = 0; b < blocks; ++b) {
        const BlockTensorNames names = blockTensorNames(r, stack, b);
        list.norm(names.attentionNorm);
        list.norm(names.attentionOutputNorm);
        list.norm(names.crossAttentionNorm);
        list.linear(names.feedForwardIn, d, d_ff, r.linearLayout);
        list.linear(names.feedForwardGate, d, d_ff, r.linearLayout);
        list.linear(names.feedForwardGateUp, d, 2 * d_ff, r.linearLayout);
        list.linear(names.feedForwardOut, d_ff, d, r.linearLayout);
        list.norm(names.feedForwardNorm);
        list.norm(names.feedForwardOutputNorm);
    }
    list.norm(finalNormName(r, stack));
}

// Every tensor the recipe's row names, besides the attention projections (the layer loader's).
std::vector<NamedTensor> rowTensors(const Checkpoint& checkpoint, const FamilyRecipe& r)
{
    RowTensors list(checkpoint, r);
    if (r.encoderLayerCount > 0) addStack(list, checkpoint, r, ModelStack::Encoder, r.encoderLayerCount);
    if (r.decoderLayerCount > 0) addStack(list, checkpoint, r, ModelStack::Decoder, r.decoderLayerCount);
    if (r.readout == ReadoutKind::None) return list.tensors;
    const ReadoutTensorNames readout = readoutTensorNames(r);
    const auto d = static_cast<std::size_t>(r.d_model);
    const auto V = static_cast<std::size_t>(r.vocabularySize);
    list.linear(readout.transform, d, d, LinearLayout::OutByIn, false);
    list.norm(readout.transformNorm);
    if (!r.tiedReadout) list.add(readout.decoder, {V, d}, false);
    if (checkpoint.tensors.contains(readout.bias)) {
        const bool row = checkpoint.tensors.at(readout.bias).shape.size() == 2;
        list.add(readout.bias, row ? Shape{1, V} : Shape{V}, false);
    }
    return list.tensors;
}

struct FamilyCase {
    std::string folder;
    Family family;
};

// The synthetic checkpoints of tests/data/pretrained (make_pretrained_fixtures.py,
// make_seq2seq_fixtures.py, make_gemma_fixtures.py, make_fused_families.py), one family each.
const std::vector<FamilyCase> kFamilyCases{{"bert", Family::Bert},
                                           {"roberta", Family::Roberta},
                                           {"distilbert", Family::DistilBert},
                                           {"gpt2", Family::Gpt2},
                                           {"gpt2_bare", Family::Gpt2},
                                           {"llama", Family::Llama},
                                           {"qwen3", Family::Qwen3},
                                           {"bart", Family::Bart},
                                           {"marian", Family::Marian},
                                           {"gemma2", Family::Gemma2},
                                           {"gemma3", Family::Gemma3},
                                           {"phi3", Family::Phi3},
                                           {"pythia", Family::GptNeox},
                                           {"olmo2", Family::Olmo2}};

class FamilyCheckpoint : public ::testing::TestWithParam<FamilyCase> {
protected:
    void SetUp() override
    {
        Expected<Checkpoint> opened =
            openCheckpoint(std::string(qkv::testDataDir()) + "/pretrained/" + GetParam().folder);
        ASSERT_TRUE(opened.ok()) << opened.error();
        checkpoint_ = std::move(*opened);
        Expected<FamilyRecipe> recipe = familyRecipe(checkpoint_);
        ASSERT_TRUE(recipe.ok()) << recipe.error();
        recipe_ = std::move(*recipe);
    }
    Checkpoint checkpoint_;
    FamilyRecipe recipe_;
};

TEST_P(FamilyCheckpoint, EveryTensorTheRowNamesExistsWithItsShape)
{
    ASSERT_EQ(recipe_.family, GetParam().family);
    const std::vector<NamedTensor> tensors = rowTensors(checkpoint_, recipe_);
    EXPECT_GT(tensors.size(), 4u);
    for (const NamedTensor& tensor : tensors) {
        const auto it = checkpoint_.tensors.find(tensor.name);
        ASSERT_NE(it, checkpoint_.tensors.end()) << "the row names '" << tensor.name << "'";
        EXPECT_EQ(it->second.shape, tensor.shape) << tensor.name;
    }
    for (const ModelStack stack : {ModelStack::Encoder, ModelStack::Decoder}) {
        const Index blocks = stack == ModelStack::Encoder ? recipe_.encoderLayerCount : recipe_.decoderLayerCount;
        for (Index b = 0; b < blocks; ++b) {
            const BlockTensorNames names = blockTensorNames(recipe_, stack, b);
            for (const std::string& module : {names.attention, names.crossAttention}) {
                if (module.empty()) continue;
                const bool found = std::any_of(checkpoint_.layers.begin(), checkpoint_.layers.end(),
                                               [&](const CheckpointLayer& layer) {
                                                   return layer.name == module && layer.d_model == recipe_.d_model;
                                               });
                EXPECT_TRUE(found) << "no attention layer '" << module << "' of d_model " << recipe_.d_model;
            }
        }
    }
}

TEST_P(FamilyCheckpoint, AFileWithoutATensorTheRowNamesIsRefusedNamingIt)
{
    for (const NamedTensor& tensor : rowTensors(checkpoint_, recipe_)) {
        if (!tensor.required) continue;
        Checkpoint without = checkpoint_;
        without.tensors.erase(tensor.name);
        Expected<PretrainedModel> model = loadPretrainedModel(std::move(without), WeightResidency::Whole);
        ASSERT_FALSE(model.ok()) << "loaded without '" << tensor.name << "'";
        EXPECT_TRUE(contains(model.error(), "'" + tensor.name + "'")) << model.error();
    }
}

INSTANTIATE_TEST_SUITE_P(Families, FamilyCheckpoint, ::testing::ValuesIn(kFamilyCases),
                         [](const auto& info) { return info.param.folder; });

TEST(FamilyRows, EveryRowHasASyntheticCheckpoint)
{
    for (const Family family : kAllFamilies) {
        if (!familyRow(family).wholeModel) continue;  // T5's and PyTorch's layers load one at a time only
        EXPECT_TRUE(std::any_of(kFamilyCases.begin(), kFamilyCases.end(), [&](const FamilyCase& c) {
            return c.family == family;
        })) << familyName(family);
    }
}

// Every layer a family's checkpoint holds is of the row's layer family, and the row's q/k norms
// are what its first layer loads: none, one scale per head's d_k components (Qwen3, Gemma 3), or
// one over the whole h d_k (OLMo 2).
TEST_P(FamilyCheckpoint, ItsLayersAreTheRowsLayerFamilyWithTheRowsQueryKeyNorms)
{
    const FamilyRow& row = familyRow(recipe_.family);
    for (const CheckpointLayer& layer : checkpoint_.layers) EXPECT_EQ(layer.family, row.layers) << layer.name;
    Expected<CheckpointLayerWeights> first = loadCheckpointLayer(checkpoint_, checkpoint_.layers.front());
    ASSERT_TRUE(first.ok()) << first.error();
    const AttentionWeights& w = first->weights;
    const Index d_k = first->settings.d_k;
    switch (row.queryKeyNorm) {
    case QueryKeyNorm::None: EXPECT_FALSE(w.queryNorm.has_value()); break;
    case QueryKeyNorm::PerHead:
        ASSERT_TRUE(w.queryNorm.has_value());
        EXPECT_EQ(w.queryNorm->size(), d_k);
        break;
    case QueryKeyNorm::Whole:
        ASSERT_TRUE(w.queryNorm.has_value());
        EXPECT_EQ(w.queryNorm->size(), first->settings.headCount * d_k);
        break;
    }
}

// Where a Qwen3 layer differs from LLaMA's: the table's two rows say it, and the files agree.
TEST(FamilyRows, Qwen3IsLlamasRowWithPerHeadQueryKeyNorms)
{
    const FamilyRow& llama = familyRow(Family::Llama);
    const FamilyRow& qwen3 = familyRow(Family::Qwen3);
    EXPECT_EQ(qwen3.name, "Qwen3");
    EXPECT_EQ(qwen3.layers, Family::Llama);
    EXPECT_EQ(familyOfModelType("qwen3"), &qwen3);
    EXPECT_EQ(llama.queryKeyNorm, QueryKeyNorm::None);
    EXPECT_EQ(qwen3.queryKeyNorm, QueryKeyNorm::PerHead);
    EXPECT_EQ(qwen3.block.attention, llama.block.attention);
    EXPECT_EQ(qwen3.block.feedForwardGate, llama.block.feedForwardGate);
    EXPECT_EQ(qwen3.norm, llama.norm);
    EXPECT_EQ(qwen3.positions, llama.positions);
    EXPECT_EQ(layerFamilyName(Family::Qwen3), "LLaMA-style") << "its layers carry LLaMA's names";
}

// A layer family names its projections; a row that shares another's layers names none.
TEST(FamilyRows, OnlyALayerFamilyNamesItsProjections)
{
    FamilyRow qwen3 = familyRow(Family::Qwen3);
    qwen3.attention.projections = {"q_proj", "k_proj", "v_proj", "o_proj"};
    EXPECT_TRUE(contains(rowError(qwen3), "attention.projections"));
    FamilyRow t5 = familyRow(Family::T5);
    t5.attention.projections[3] = "";
    EXPECT_TRUE(contains(rowError(t5), "attention.projections"));
}

}  // namespace
}  // namespace qkv
