// TrainedModel: its provenance line, snapshots of a run, and its attention layers on the user's
// sentences (the model's own tokens, the inputs each layer reads, and errors naming the word).
#include <cmath>

#include <gtest/gtest.h>

#include "core/training/trained_model.hpp"
#include "support/matrix_assertions.hpp"

namespace qkv {
namespace {

TrainedModel modelFor(TaskKind kind, long steps, double accuracy)
{
    TrainedModel model;
    model.settings = TrainingSettings::defaultsFor(kind);
    model.steps = steps;
    model.heldOutAccuracy = accuracy;
    return model;
}

TEST(TrainedModel, ProvenanceSaysTaskStepsAndHeldOutAccuracy)
{
    EXPECT_EQ(modelFor(TaskKind::Reverse, 2000, 0.9961).provenance(),
              "trained: reverse, 2,000 steps, held-out accuracy 99.6%");
    EXPECT_EQ(modelFor(TaskKind::Induction, 12345678, 1.0).provenance(),
              "trained: induction, 12,345,678 steps, held-out accuracy 100.0%");
    EXPECT_EQ(modelFor(TaskKind::Sort, 1, 0.25).provenance(), "trained: sort, 1 step, held-out accuracy 25.0%");
    EXPECT_EQ(modelFor(TaskKind::Copy, 999, 0.99996).provenance(), "trained: copy, 999 steps, held-out accuracy 99.9%")
        << "only a perfect score reads 100.0%";
    EXPECT_EQ(modelFor(TaskKind::Copy, 0, std::nan("")).provenance(), "trained: copy, 0 steps")
        << "never evaluated: no accuracy";

    TrainedModel translate = modelFor(TaskKind::Translate, 3000, 0.975);
    EXPECT_EQ(translate.provenance(), "trained: translate to French, 3,000 steps, held-out accuracy 97.5%");
    translate.settings.task.language = TargetLanguage::German;
    translate.settings.variant = ScoreForm::Full;
    EXPECT_EQ(translate.provenance(), "trained: translate to German, full W_i, 3,000 steps, held-out accuracy 97.5%");
    translate.settings.task.pairsFile = "/home/me/data/en-es.tsv";
    EXPECT_EQ(translate.provenance(), "trained: translate en-es.tsv, full W_i, 3,000 steps, held-out accuracy 97.5%");
}

std::unique_ptr<TrainingRun> smallRun(TaskKind kind)
{
    TrainingSettings settings = TrainingSettings::defaultsFor(kind);
    settings.d_model = 16;
    settings.headCount = 2;
    settings.task.heldOutCount = 8;
    Expected<std::unique_ptr<TrainingRun>> run = TrainingRun::create(settings);
    EXPECT_TRUE(run.ok()) << run.error();
    return std::move(run).value();
}

TEST(TrainedModel, ASnapshotCopiesTheRunAsItIsNow)
{
    const std::unique_ptr<TrainingRun> run = smallRun(TaskKind::Copy);
    for (int i = 0; i < 3; ++i) run->step();
    const BatchLoss loss = run->evaluate();
    run->step();  // a step after the last evaluation: the accuracy is the evaluation's
    const std::shared_ptr<const TrainedModel> model = TrainedModel::snapshot(*run);
    EXPECT_EQ(model->steps, 4);
    EXPECT_EQ(model->parameters.values, run->parameters().values);
    EXPECT_EQ(model->parameters.spec, run->spec());
    EXPECT_EQ(model->vocabulary.tokens(), run->data().vocabulary().tokens());
    EXPECT_EQ(model->curve.size(), 4u);
    EXPECT_EQ(model->settings.task.kind, TaskKind::Copy);
    EXPECT_DOUBLE_EQ(model->heldOutAccuracy,
                     static_cast<double>(loss.correctTokens) / static_cast<double>(loss.scoredTokens));

    run->step();
    EXPECT_NE(model->parameters.values, run->parameters().values) << "the snapshot does not follow the run";
    EXPECT_TRUE(std::isnan(TrainedModel::snapshot(*smallRun(TaskKind::Copy))->heldOutAccuracy));
}

TEST(TrainedModel, EachLayerReadsTheSentencesAsTheModelDoes)
{
    const std::unique_ptr<TrainingRun> run = smallRun(TaskKind::Reverse);
    const std::shared_ptr<const TrainedModel> model = TrainedModel::snapshot(*run);
    SequencePair example{{3, 4, 5}, {Vocabulary::bos, 5, 4}, {-1, -1, -1}};  // "a b c" / <bos> "c b"
    const ModelTrace trace = traceExample(model->parameters, example);
    ASSERT_EQ(trace.layers.size(), 3u);

    const std::vector<AttentionMode> kinds{AttentionMode::EncoderSelf, AttentionMode::DecoderCausal,
                                           AttentionMode::Cross};
    for (Index layer = 0; layer < 3; ++layer) {
        const Expected<ModelLayerInput> input = modelLayerInput(*model, layer, "a b c", " c  b ");
        ASSERT_TRUE(input.ok()) << input.error();
        EXPECT_EQ(input->kind, kinds[static_cast<std::size_t>(layer)]);
        EXPECT_MATRIX_NEAR(input->queryInput, trace.layers[static_cast<std::size_t>(layer)].queryInput, 0.0);
        EXPECT_MATRIX_NEAR(input->keyValueInput, trace.layers[static_cast<std::size_t>(layer)].keyValueInput, 0.0);
    }
    const std::vector<std::string> source{"a", "b", "c"}, target{"<bos>", "c", "b"};
    EXPECT_EQ(modelLayerInput(*model, 0, "a b c", "c b")->queryLabels, source);
    EXPECT_EQ(modelLayerInput(*model, 0, "a b c", "c b")->keyLabels, source);
    EXPECT_EQ(modelLayerInput(*model, 1, "a b c", "c b")->queryLabels, target);
    EXPECT_EQ(modelLayerInput(*model, 1, "a b c", "c b")->keyLabels, target);
    EXPECT_EQ(modelLayerInput(*model, 2, "a b c", "c b")->queryLabels, target);
    EXPECT_EQ(modelLayerInput(*model, 2, "a b c", "c b")->keyLabels, source);
    EXPECT_EQ(modelLayerInput(*model, 2, "a b c", "")->queryLabels, std::vector<std::string>{"<bos>"})
        << "the decoder always reads <bos>";
}

TEST(TrainedModel, BadSentencesAreErrorsNamingTheWordAndTheSentence)
{
    const std::shared_ptr<const TrainedModel> model = TrainedModel::snapshot(*smallRun(TaskKind::Reverse));
    const auto errorOf = [&model](Index layer, const std::string& source, const std::string& target) {
        const Expected<ModelLayerInput> input = modelLayerInput(*model, layer, source, target);
        return input.ok() ? std::string() : input.error();
    };
    EXPECT_EQ(errorOf(2, "a zebra", "b"), "the source sentence: 'zebra' is not in this model's vocabulary (19 tokens)");
    EXPECT_EQ(errorOf(2, "a b", "b chat"), "the target sentence: 'chat' is not in this model's vocabulary (19 tokens)");
    EXPECT_EQ(errorOf(2, "  ", "b"), "the source sentence is empty: this model's encoder reads it");
    EXPECT_EQ(errorOf(2, "a b c d e f g h i j k l m n", "a"),
              "the source sentence has 14 words; this model reads at most 13");
    EXPECT_EQ(errorOf(2, "a", "a b c d e f g h i j k l m"), "the target sentence has 13 words; this model reads at most 12");
    EXPECT_EQ(errorOf(3, "a", "a"), "this model has 3 attention layers (0 to 2); there is no layer 3");
    EXPECT_EQ(errorOf(-1, "a", "a"), "this model has 3 attention layers (0 to 2); there is no layer -1");
}

TEST(TrainedModel, ADecoderOnlyModelReadsTheTargetAlone)
{
    const std::shared_ptr<const TrainedModel> model = TrainedModel::snapshot(*smallRun(TaskKind::Induction));
    const Expected<ModelLayerInput> input = modelLayerInput(*model, 1, "words the model never reads", "a b a b");
    ASSERT_TRUE(input.ok()) << input.error();
    EXPECT_EQ(input->kind, AttentionMode::DecoderCausal);
    EXPECT_EQ(input->queryLabels, (std::vector<std::string>{"<bos>", "a", "b", "a", "b"}));
    EXPECT_EQ(input->keyValueInput.rows(), 5);
    EXPECT_EQ(input->queryInput.cols(), 16);
}

}  // namespace
}  // namespace qkv
