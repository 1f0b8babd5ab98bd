// A trained model as a document keeps it (trained_model.hpp): its provenance line, a snapshot
// of a run, and one of its attention layers on the user's sentences.
#include "core/training/trained_model.hpp"

#include <cmath>

#include "core/training/number_text.hpp"

namespace qkv {

namespace {

// "reverse", "translate to French", "translate pairs.tsv".
std::string taskWords(const TaskSettings& task)
{
    if (task.kind != TaskKind::Translate) return std::string(nameOf(kTaskKindNames, task.kind));
    if (!task.pairsFile.empty()) return "translate " + task.pairsFile.filename().string();
    return task.language == TargetLanguage::French ? "translate to French" : "translate to German";
}

// One side's words as ids; an unknown word is an error naming it and the side.
Expected<std::vector<std::int32_t>> encodeSide(const Vocabulary& vocabulary, const std::string& sentence,
                                               const char* side, Index maxWords)
{
    Expected<std::vector<std::int32_t>> ids = vocabulary.encode(sentence);
    if (!ids) return Error{std::string("the ") + side + " sentence: " + ids.error()};
    if (static_cast<Index>(ids->size()) > maxWords)
        return Error{std::string("the ") + side + " sentence has " + std::to_string(ids->size()) +
                     " words; this model reads at most " + std::to_string(maxWords)};
    return ids;
}

std::vector<std::string> labelsOf(const Vocabulary& vocabulary, const std::vector<std::int32_t>& ids)
{
    std::vector<std::string> labels;
    for (std::int32_t id : ids) labels.push_back(vocabulary.token(id));
    return labels;
}

}  // namespace

std::string TrainedModel::provenance() const
{
    std::string text = "trained: " + taskWords(settings.task);
    if (settings.variant == ScoreForm::Full) text += ", full W_i";
    text += ", " + withThousandsSeparators(steps) + (steps == 1 ? " step" : " steps");
    if (std::isfinite(heldOutAccuracy)) text += ", held-out accuracy " + percentText(heldOutAccuracy);
    return text;
}

std::shared_ptr<const TrainedModel> TrainedModel::snapshot(const TrainingRun& run)
{
    auto model = std::make_shared<TrainedModel>();
    model->parameters = run.parameters();
    model->vocabulary = run.data().vocabulary();
    model->settings = run.settings();
    model->curve = run.curve();
    model->steps = run.stepsDone();
    for (auto point = run.curve().rbegin(); point != run.curve().rend(); ++point) {
        if (std::isfinite(point->heldOutAccuracy)) {
            model->heldOutAccuracy = point->heldOutAccuracy;
            break;
        }
    }
    return model;
}

Expected<ModelLayerInput> modelLayerInput(const TrainedModel& model, Index layer, const std::string& source,
                                          const std::string& target)
{
    const ModelSpec& spec = model.parameters.spec;
    const std::vector<AttentionLayerInfo> layers = attentionLayers(spec);
    if (layer < 0 || layer >= static_cast<Index>(layers.size()))
        return Error{"this model has " + std::to_string(layers.size()) + " attention layers (0 to " +
                     std::to_string(layers.size() - 1) + "); there is no layer " + std::to_string(layer)};

    SequencePair example;
    if (spec.hasEncoder()) {
        Expected<std::vector<std::int32_t>> ids = encodeSide(model.vocabulary, source, "source", spec.maxPositions);
        if (!ids) return Error{ids.error()};
        if (ids->empty()) return Error{"the source sentence is empty: this model's encoder reads it"};
        example.source = std::move(*ids);
    }
    // The decoder reads <bos> and the target's words, as in training.
    Expected<std::vector<std::int32_t>> ids = encodeSide(model.vocabulary, target, "target", spec.maxPositions - 1);
    if (!ids) return Error{ids.error()};
    example.targetInput.push_back(Vocabulary::bos);
    example.targetInput.insert(example.targetInput.end(), ids->begin(), ids->end());
    example.targetOutput.assign(example.targetInput.size(), -1);

    ModelTrace trace = traceExample(model.parameters, example);
    if (trace.layers.size() != layers.size())
        return Error{"this model's weights do not fit its description (" + batchProblem(spec, {example}) + ")"};
    AttentionLayerTrace& traced = trace.layers[static_cast<std::size_t>(layer)];
    ModelLayerInput input;
    input.kind = traced.info.kind;
    const std::vector<std::int32_t>& queries = input.kind == AttentionMode::EncoderSelf ? example.source : example.targetInput;
    const std::vector<std::int32_t>& keys = input.kind == AttentionMode::DecoderCausal ? example.targetInput : example.source;
    input.queryLabels = labelsOf(model.vocabulary, queries);
    input.keyLabels = labelsOf(model.vocabulary, keys);
    input.queryInput = std::move(traced.queryInput);
    input.keyValueInput = std::move(traced.keyValueInput);
    return input;
}

}  // namespace qkv
