// Whether a computation runs off the GUI thread is decided from an estimate of its work, which
// must count the tokens compute() will see: the model's subwords with its own input, the rows
// of user embeddings.

#include <gtest/gtest.h>

#include "core/checkpoint/model_input_loading.hpp"
#include "core/cost/cost_model.hpp"
#include "ui/document/compute_runner.hpp"
#include "support/test_paths.hpp"

namespace qkv::ui {
namespace {

TEST(ComputeRunnerEstimate, CountsTheModelsSubwordsAndUserEmbeddingRows)
{
    Config config;
    config.mode = AttentionMode::EncoderSelf;
    config.d_model = 16;
    config.headCount = 2;
    config.sourceText = "playing unbelievable tokenizers";  // 3 words, more WordPiece pieces
    const double words = ComputeRunner::estimatedFlops(prepareCompute(config, {}));
    EXPECT_EQ(words, static_cast<double>(attentionForwardFlops(3, 3, 16, 2)));

    Expected<std::shared_ptr<const ModelInput>> input =
        loadModelInput(std::string(qkv::testDataDir()) + "/checkpoint/bert_input/model.safetensors", "0", {});
    ASSERT_TRUE(input.ok()) << input.error();
    UserInputs inputs;
    inputs.modelInput = *input;
    config.embeddings = EmbeddingKind::Model;
    Expected<SubwordTokenization> pieces = (*input)->tokenizer().encode(config.sourceText);
    ASSERT_TRUE(pieces.ok());
    ASSERT_GT(pieces->tokens.size(), 3u);
    const auto n = static_cast<Count>(pieces->tokens.size());  // [CLS] and [SEP] are among them
    EXPECT_EQ(pieces->tokens.front().display, "[CLS]");
    EXPECT_EQ(ComputeRunner::estimatedFlops(prepareCompute(config, inputs)),
              static_cast<double>(attentionForwardFlops(n, n, 16, 2)));
    // compute() sees exactly that many rows.
    const Expected<std::shared_ptr<const Result>> result = compute(config, inputs);
    ASSERT_TRUE(result.ok()) << result.error();
    EXPECT_EQ((*result)->queryInput.rows(), n);

    inputs.sourceEmbeddings = std::make_shared<const MatrixF>(MatrixF::Zero(40, 16));
    EXPECT_EQ(ComputeRunner::estimatedFlops(prepareCompute(config, inputs)),
              static_cast<double>(attentionForwardFlops(40, 40, 16, 2)));
}

}  // namespace
}  // namespace qkv::ui
