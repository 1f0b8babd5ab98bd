// One edit cuts each changed sentence once (core/pipeline/compute_request.hpp): validation, the
// estimate and compute() read the request's cut, and the next request keeps the cut of a
// sentence whose text and model input did not change.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "core/checkpoint/model_input_loading.hpp"
#include "core/common/limits.hpp"
#include "core/config/examples.hpp"
#include "core/pipeline/compute.hpp"
#include "core/text/tokenizer.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

Config crossExample()
{
    Config config = builtInExample();
    config.mode = AttentionMode::Cross;
    return config;
}

TEST(ComputeRequest, ComputingAPreparedRequestCutsNothingAgain)
{
    const Config config = crossExample();
    std::uint64_t before = sentenceCutCount();
    const ComputeRequest request = prepareCompute(config, {});
    EXPECT_EQ(sentenceCutCount() - before, 2u);  // source and target, once each
    ASSERT_TRUE(request.valid()) << describe(request.issues);

    before = sentenceCutCount();
    const Expected<std::shared_ptr<const Result>> result = compute(request);
    ASSERT_TRUE(result.ok()) << result.error();
    EXPECT_EQ(sentenceCutCount() - before, 0u);
    // Cross-attention: queries from the target, keys and values from the source.
    EXPECT_EQ((*result)->queryTokens.size(), request.sentences.target->words.size());
    EXPECT_EQ((*result)->keyTokens.size(), request.sentences.source->words.size());
    EXPECT_EQ(request.queryTokenCount(), static_cast<Index>(tokenize(config.targetText).size()));
    EXPECT_EQ(request.keyTokenCount(), static_cast<Index>(tokenize(config.sourceText).size()));

    // The same numbers as computing the configuration directly.
    const Expected<std::shared_ptr<const Result>> direct = compute(config);
    ASSERT_TRUE(direct.ok()) << direct.error();
    EXPECT_EQ((*direct)->attention.output, (*result)->attention.output);
}

TEST(ComputeRequest, AnUnchangedSentenceKeepsItsCut)
{
    Config config = crossExample();
    const ComputeRequest first = prepareCompute(config, {});

    config.headCount = 2;  // no sentence changed
    std::uint64_t before = sentenceCutCount();
    const ComputeRequest second = prepareCompute(config, {}, {}, &first);
    EXPECT_EQ(sentenceCutCount() - before, 0u);
    EXPECT_EQ(second.sentences.source, first.sentences.source);
    EXPECT_EQ(second.sentences.target, first.sentences.target);

    config.targetText += " again";  // one sentence changed
    before = sentenceCutCount();
    const ComputeRequest third = prepareCompute(config, {}, {}, &second);
    EXPECT_EQ(sentenceCutCount() - before, 1u);
    EXPECT_EQ(third.sentences.source, first.sentences.source);
    EXPECT_EQ(third.sentences.target->words.back().text, "again");
    ASSERT_TRUE(compute(third).ok());
}

TEST(ComputeRequest, ValidationReadsTheCutWordCounts)
{
    Config config = crossExample();
    config.sourceText = " \t ";
    const ComputeRequest request = prepareCompute(config, {});
    ASSERT_EQ(request.issues.size(), 1u) << describe(request.issues);
    EXPECT_EQ(request.issues[0].field, ConfigField::Source);
    const Expected<std::shared_ptr<const Result>> result = compute(request);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.error().find("source sentence is empty"), std::string::npos) << result.error();

    // Text over the size limit is refused by its size, without cutting it.
    config.sourceText = std::string(limits::maxSentenceBytes + 1, 'a');
    const std::uint64_t before = sentenceCutCount();
    const ComputeRequest huge = prepareCompute(config, {});
    EXPECT_EQ(sentenceCutCount() - before, 1u);  // the target only
    EXPECT_TRUE(huge.sentences.source->words.empty());
    ASSERT_FALSE(huge.valid());
    EXPECT_NE(describe(huge.issues).find("bytes long"), std::string::npos) << describe(huge.issues);
}

TEST(ComputeRequest, ARequestForOtherTextIsRefusedNotRead)
{
    ComputeRequest request = prepareCompute(crossExample(), {});
    request.config.sourceText = "something else entirely";
    const Expected<std::shared_ptr<const Result>> result = compute(request);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.error().find("prepareCompute"), std::string::npos) << result.error();
}

TEST(ComputeRequest, TheModelsTokenizerCutsOnceAndItsTokensAreTheRows)
{
    Expected<std::shared_ptr<const ModelInput>> input =
        loadModelInput(std::string(qkv::testDataDir()) + "/checkpoint/bert_input/model.safetensors", "0", {});
    ASSERT_TRUE(input.ok()) << input.error();
    Config config;
    config.mode = AttentionMode::EncoderSelf;
    config.d_model = (*input)->d_model();
    config.headCount = 2;
    config.embeddings = EmbeddingKind::Model;
    config.sourceText = "playing unbelievable tokenizers";
    UserInputs inputs;
    inputs.modelInput = *input;

    std::uint64_t before = sentenceCutCount();
    const ComputeRequest request = prepareCompute(config, inputs);
    // Words and the model's tokens, of each sentence (the unused target too: its field shows it).
    EXPECT_EQ(sentenceCutCount() - before, 4u);
    ASSERT_TRUE(request.valid()) << describe(request.issues);
    const SubwordTokenization* tokens = request.sentences.source->modelTokens();
    ASSERT_NE(tokens, nullptr);

    before = sentenceCutCount();
    const Expected<std::shared_ptr<const Result>> result = compute(request);
    ASSERT_TRUE(result.ok()) << result.error();
    EXPECT_EQ(sentenceCutCount() - before, 0u);
    EXPECT_EQ((*result)->queryInput.rows(), static_cast<Index>(tokens->tokens.size()));
    EXPECT_EQ(request.queryTokenCount(), static_cast<Index>(tokens->tokens.size()));
    EXPECT_EQ((*result)->queryTokens.front().text, "[CLS]");
    // The model's X of the cut tokens is the X of the text.
    const Expected<ModelSentence> embedded = (*input)->embed(config.sourceText);
    ASSERT_TRUE(embedded.ok()) << embedded.error();
    EXPECT_EQ((*result)->queryInput, embedded->input);

    // Another model input is another cut, though the text is the same.
    Expected<std::shared_ptr<const ModelInput>> other =
        loadModelInput(std::string(qkv::testDataDir()) + "/checkpoint/bert_input/model.safetensors", "0", {});
    ASSERT_TRUE(other.ok()) << other.error();
    inputs.modelInput = *other;
    const ComputeRequest next = prepareCompute(config, inputs, {}, &request);
    EXPECT_NE(next.sentences.source, request.sentences.source);
    EXPECT_EQ(next.sentences.source->model, *other);
}

// A sentence of `count` words ("w0 w1 ..."), one token each.
std::string wordsOf(Index count)
{
    std::string text;
    for (Index i = 0; i < count; ++i) text += (i ? " w" : "w") + std::to_string(i);
    return text;
}

TEST(ComputeRequest, ADrawnLayerHoldsItsMapsUpToTheLimitAndStreamsPastIt)
{
    Config config = builtInExample();
    config.mode = AttentionMode::DecoderCausal;
    config.d_model = 16;
    config.headCount = 2;

    // At the limit: held, exactly what prepareCompute gives (so the views are bit-identical).
    config.targetText = wordsOf(limits::maxFullMapTokens);
    const ComputeRequest held = prepareDrawnCompute(config, {}, 64);
    ASSERT_TRUE(held.valid()) << describe(held.issues);
    EXPECT_FALSE(held.plan.streamed());
    EXPECT_EQ(held.queryTokenCount(), limits::maxFullMapTokens);

    // One token past it: streamed, pooled to the blocks asked for, and computed without a map.
    config.targetText = wordsOf(limits::maxFullMapTokens + 1);
    const ComputeRequest streamed = prepareDrawnCompute(config, {}, 64, &held);
    ASSERT_TRUE(streamed.valid()) << describe(streamed.issues);
    EXPECT_TRUE(streamed.plan.streamed());
    EXPECT_EQ(streamed.plan.pooledBlocks, 64);
    const Expected<std::shared_ptr<const Result>> result = compute(streamed);
    ASSERT_TRUE(result.ok()) << result.error();
    EXPECT_TRUE((*result)->streamed());
    EXPECT_EQ((*result)->streamedHeads.front().pooled.mean.rows(), 64);
    EXPECT_EQ((*result)->attention.heads.front().attention.size(), 0);

    // Past the streamed limit the issue names it, at the field.
    config.targetText = wordsOf(limits::maxTokens + 1);
    const ComputeRequest tooLong = prepareDrawnCompute(config, {}, 64, &streamed);
    ASSERT_FALSE(tooLong.valid());
    EXPECT_NE(describe(tooLong.issues).find(std::to_string(limits::maxTokens)), std::string::npos)
        << describe(tooLong.issues);
}

TEST(ComputeRequest, AStreamedComputationCountsItsRowsAndEndsWhenStopped)
{
    Config config = builtInExample();
    config.mode = AttentionMode::DecoderCausal;
    config.d_model = 16;
    config.headCount = 2;
    config.targetText = wordsOf(limits::maxFullMapTokens + 100);
    const ComputeRequest request = prepareDrawnCompute(config, {}, 32);
    ASSERT_TRUE(request.valid()) << describe(request.issues);

    std::atomic<Index> rows{0};
    std::atomic<bool> stop{false};
    const Expected<std::shared_ptr<const Result>> done = compute(request, nullptr, {&rows, &stop});
    ASSERT_TRUE(done.ok()) << done.error();
    EXPECT_EQ(rows.load(), config.headCount * request.queryTokenCount());

    stop = true;
    const Expected<std::shared_ptr<const Result>> stopped = compute(request, nullptr, {&rows, &stop});
    ASSERT_FALSE(stopped.ok());
    EXPECT_EQ(stopped.error(), streamStoppedError);
}

}  // namespace
}  // namespace qkv
