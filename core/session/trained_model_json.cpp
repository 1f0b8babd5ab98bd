#include "core/session/trained_model_json.hpp"

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "core/session/json_fields.hpp"
#include "core/session/json_matrix.hpp"

namespace qkv {

namespace {

using Json = nlohmann::json;

// ---- spec ----------------------------------------------------------------------------------

Json specToJson(const ModelSpec& s)
{
    return {{"vocabulary_size", s.vocabularySize},
            {"max_positions", s.maxPositions},
            {"d_model", s.d_model},
            {"heads", s.headCount},
            {"encoder_layers", s.encoderLayers},
            {"decoder_layers", s.decoderLayers},
            {"d_ff", s.d_ff},
            {"norm", nameOf(kNormKindNames, s.norm)},
            {"norm_placement", nameOf(kNormPlacementNames, s.placement)},
            {"norm_epsilon", s.normEpsilon},
            {"activation", nameOf(kActivationNames, s.activation)},
            {"positions", nameOf(kPositionKindNames, s.positions)},
            {"score_form", nameOf(kScoreFormNames, s.scoreForm)},
            {"scale_embedding", s.scaleEmbedding}};
}

Expected<ModelSpec> specFromJson(const Json& json)
{
    if (!json.is_object()) return Error{"model.spec: must be an object"};
    ModelSpec s;
    JsonFields in{json, "model.spec.", {}};
    in.require({"vocabulary_size", "max_positions", "d_model", "heads", "encoder_layers", "decoder_layers", "d_ff",
                "norm", "norm_placement", "norm_epsilon", "activation", "positions", "score_form",
                "scale_embedding"});
    // Wide ranges here; ModelSpec::problem() says what does not fit together in its own words.
    constexpr long long wide = 1 << 20;
    in.integer("vocabulary_size", s.vocabularySize, 0, wide);
    in.integer("max_positions", s.maxPositions, 0, wide);
    in.integer("d_model", s.d_model, 1, wide);
    in.integer("heads", s.headCount, 1, wide);
    in.integer("encoder_layers", s.encoderLayers, 0, wide);
    in.integer("decoder_layers", s.decoderLayers, 0, wide);
    in.integer("d_ff", s.d_ff, 0, wide);
    in.choice("norm", s.norm, kNormKindNames);
    in.choice("norm_placement", s.placement, kNormPlacementNames);
    in.number("norm_epsilon", s.normEpsilon, 0.0, 1.0, true);
    in.choice("activation", s.activation, kActivationNames);
    in.choice("positions", s.positions, kPositionKindNames);
    in.choice("score_form", s.scoreForm, kScoreFormNames);
    in.flag("scale_embedding", s.scaleEmbedding);
    if (!in.error.empty()) return Error{in.error};
    if (const std::string problem = s.problem(); !problem.empty()) return Error{"model.spec: " + problem};
    return s;
}

// ---- tensors -------------------------------------------------------------------------------

Json tensorsToJson(const ModelParameters<float>& p)
{
    Json tensors = Json::object();
    for (const TensorSlot& slot : p.tensors) tensors[slot.name] = matrixToJson(p.values.data() + slot.offset, slot.rows, slot.cols);
    return tensors;
}

// Every tensor of tensorLayout(spec) and no other; shapes and data sizes are checked for all of
// them before the parameters are allocated, so a small hostile file cannot ask for gigabytes.
Expected<ModelParameters<float>> tensorsFromJson(const Json& json, const ModelSpec& spec)
{
    if (!json.is_object()) return Error{"model.tensors: must be an object {name: {shape, dtype, data}}"};
    const std::vector<TensorSlot> layout = tensorLayout(spec);
    std::set<std::string> expected;
    for (const TensorSlot& slot : layout) {
        const std::string name = "model.tensors." + slot.name;
        const auto found = json.find(slot.name);
        if (found == json.end()) return Error{name + ": missing"};
        if (Status checked = checkMatrixJson(*found, name, slot.rows, slot.cols); !checked) return Error{checked.error()};
        expected.insert(slot.name);
    }
    for (const auto& [name, value] : json.items())
        if (!expected.count(name))
            return Error{"model.tensors: '" + name + "' is not a tensor of this model (" +
                         std::string(nameOf(kScoreFormNames, spec.scoreForm)) + ", " +
                         std::to_string(spec.encoderLayers) + " encoder and " + std::to_string(spec.decoderLayers) +
                         " decoder layers)"};
    ModelParameters<float> parameters = ModelParameters<float>::zeros(spec);
    for (const TensorSlot& slot : parameters.tensors) {
        const Status read = matrixFromJson(*json.find(slot.name), "model.tensors." + slot.name, slot.rows, slot.cols,
                                           parameters.values.data() + slot.offset);
        if (!read) return Error{read.error()};
    }
    return parameters;
}

// ---- vocabulary ----------------------------------------------------------------------------

Expected<Vocabulary> vocabularyFromJson(const Json& json, const ModelSpec& spec)
{
    if (!json.is_array()) return Error{"model.vocabulary: must be a list of the model's tokens, in id order"};
    if (static_cast<Index>(json.size()) != spec.vocabularySize)
        return Error{"model.vocabulary: has " + std::to_string(json.size()) + " tokens but the model's vocabulary_size is " +
                     std::to_string(spec.vocabularySize)};
    std::vector<std::string> tokens;
    tokens.reserve(json.size());
    for (const Json& token : json) {
        if (!token.is_string()) return Error{"model.vocabulary: each token must be a string"};
        tokens.push_back(token.get<std::string>());
    }
    Expected<Vocabulary> vocabulary = Vocabulary::fromTokens(std::move(tokens));
    if (!vocabulary) return Error{"model.vocabulary: " + vocabulary.error()};
    return vocabulary;
}

// ---- training settings ---------------------------------------------------------------------

Json trainingToJson(const TrainingSettings& t)
{
    const AdamWSettings& o = t.optimizer;
    return {{"task", nameOf(kTaskKindNames, t.task.kind)},
            {"language", nameOf(kTargetLanguageNames, t.task.language)},
            {"data", t.task.pairsFile.string()},
            {"data_seed", t.task.seed},
            {"held_out", t.task.heldOutCount},
            {"variant", nameOf(kScoreFormNames, t.variant)},
            {"d_model", t.d_model},
            {"heads", t.headCount},
            {"layers", t.layers},
            {"steps", t.steps},
            {"batch", t.batch},
            {"learning_rate", o.learningRate},
            {"beta1", o.beta1},
            {"beta2", o.beta2},
            {"epsilon", o.epsilon},
            {"weight_decay", o.weightDecay},
            {"clip_norm", o.clipNorm},
            {"warmup_steps", o.warmupSteps},
            {"seed", t.seed}};
}

Expected<TrainingSettings> trainingFromJson(const Json& json, const ModelSpec& spec)
{
    if (!json.is_object()) return Error{"model.training: must be an object"};
    TrainingSettings t;
    AdamWSettings& o = t.optimizer;
    JsonFields in{json, "model.training.", {}};
    in.require({"task", "language", "data", "data_seed", "held_out", "variant", "d_model", "heads", "layers", "steps",
                "batch", "learning_rate", "beta1", "beta2", "epsilon", "weight_decay", "clip_norm", "warmup_steps",
                "seed"});
    constexpr long long wide = 1 << 20, manySteps = 1LL << 50;
    in.choice("task", t.task.kind, kTaskKindNames);
    in.choice("language", t.task.language, kTargetLanguageNames);
    std::string data;
    in.text("data", data);
    t.task.pairsFile = data;
    in.seed("data_seed", t.task.seed);
    in.integer("held_out", t.task.heldOutCount, 0, wide);
    in.choice("variant", t.variant, kScoreFormNames);
    in.integer("d_model", t.d_model, 1, wide);
    in.integer("heads", t.headCount, 1, wide);
    in.integer("layers", t.layers, 0, wide);
    in.integer("steps", t.steps, 0, manySteps);
    in.integer("batch", t.batch, 1, wide);
    in.number("learning_rate", o.learningRate, 0.0, 1e6, true);
    in.number("beta1", o.beta1, 0.0, 1.0);
    in.number("beta2", o.beta2, 0.0, 1.0);
    in.number("epsilon", o.epsilon, 0.0, 1.0, true);
    in.number("weight_decay", o.weightDecay, 0.0, 1e6);
    in.number("clip_norm", o.clipNorm, 0.0, std::numeric_limits<double>::max());
    in.integer("warmup_steps", o.warmupSteps, 0, manySteps);
    in.seed("seed", t.seed);
    if (!in.error.empty()) return Error{in.error};
    // The settings describe the model the tensors are: a file that says otherwise is corrupt.
    if (t.variant != spec.scoreForm)
        return Error{"model.training.variant: '" + std::string(nameOf(kScoreFormNames, t.variant)) +
                     "' but the spec's score_form is '" + std::string(nameOf(kScoreFormNames, spec.scoreForm)) + "'"};
    if (t.d_model != spec.d_model || t.headCount != spec.headCount)
        return Error{"model.training: d_model " + std::to_string(t.d_model) + " and h " + std::to_string(t.headCount) +
                     " differ from the spec's (" + std::to_string(spec.d_model) + ", " +
                     std::to_string(spec.headCount) + ")"};
    return t;
}

// ---- curve ---------------------------------------------------------------------------------

// A double as JSON: finite values as numbers (the shortest text that reads back to the same
// bits), NaN (a point without held-out numbers) as null, infinities as "inf" and "-inf".
Json doubleToJson(double value)
{
    if (std::isnan(value)) return nullptr;
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    return value;
}

bool doubleFromJson(const Json& json, double& value)
{
    if (json.is_null()) value = std::numeric_limits<double>::quiet_NaN();
    else if (json.is_number()) value = json.get<double>();
    else if (json == "inf") value = std::numeric_limits<double>::infinity();
    else if (json == "-inf") value = -std::numeric_limits<double>::infinity();
    else return false;
    return true;
}

// The curve's columns, in CurvePoint's order.
struct CurveColumn {
    const char* name;
    double CurvePoint::*member;
};
constexpr CurveColumn kCurveColumns[] = {{"seconds", &CurvePoint::seconds},
                                         {"loss", &CurvePoint::loss},
                                         {"accuracy", &CurvePoint::accuracy},
                                         {"heldout_loss", &CurvePoint::heldOutLoss},
                                         {"heldout_accuracy", &CurvePoint::heldOutAccuracy},
                                         {"heldout_sequence_accuracy", &CurvePoint::heldOutSequenceAccuracy}};

Json curveToJson(const std::vector<CurvePoint>& curve)
{
    Json columns = Json::object();
    Json steps = Json::array();
    for (const CurvePoint& point : curve) steps.push_back(point.step);
    columns["step"] = std::move(steps);
    for (const CurveColumn& column : kCurveColumns) {
        Json values = Json::array();
        for (const CurvePoint& point : curve) values.push_back(doubleToJson(point.*column.member));
        columns[column.name] = std::move(values);
    }
    return columns;
}

Expected<std::vector<CurvePoint>> curveFromJson(const Json& json)
{
    if (!json.is_object()) return Error{"model.curve: must be an object of columns (step, seconds, loss, ...)"};
    const auto steps = json.find("step");
    if (steps == json.end() || !steps->is_array()) return Error{"model.curve.step: missing (a list of step numbers)"};
    std::vector<CurvePoint> curve(steps->size());
    for (std::size_t i = 0; i < curve.size(); ++i) {
        const Json& step = (*steps)[i];
        if (!step.is_number_integer() || step.get<long long>() < 0)
            return Error{"model.curve.step: each must be a whole number from 0"};
        curve[i].step = step.get<long>();
    }
    for (const CurveColumn& column : kCurveColumns) {
        const std::string name = std::string("model.curve.") + column.name;
        const auto values = json.find(column.name);
        if (values == json.end() || !values->is_array()) return Error{name + ": missing"};
        if (values->size() != curve.size())
            return Error{name + ": has " + std::to_string(values->size()) + " values for " +
                         std::to_string(curve.size()) + " steps"};
        for (std::size_t i = 0; i < curve.size(); ++i)
            if (!doubleFromJson((*values)[i], curve[i].*column.member))
                return Error{name + ": each must be a number, null (not measured), \"inf\" or \"-inf\""};
    }
    return curve;
}

// ---- the layer shown -----------------------------------------------------------------------

Expected<Index> layerFromJson(const Json& json, const ModelSpec& spec)
{
    const std::vector<AttentionLayerInfo> layers = attentionLayers(spec);
    std::string names;
    for (const AttentionLayerInfo& layer : layers) names += (names.empty() ? "" : ", ") + layer.name;
    if (!json.is_string()) return Error{"model.layer: must be the name of one of the model's attention layers (" + names + ")"};
    for (std::size_t i = 0; i < layers.size(); ++i)
        if (layers[i].name == json.get_ref<const std::string&>()) return static_cast<Index>(i);
    return Error{"model.layer: '" + json.get<std::string>() + "' is not an attention layer of this model (" + names + ")"};
}

}  // namespace

Json trainedModelToJson(const TrainedModel& model, Index layer)
{
    const std::vector<AttentionLayerInfo> layers = attentionLayers(model.parameters.spec);
    return {{"spec", specToJson(model.parameters.spec)},
            {"vocabulary", model.vocabulary.tokens()},
            {"training", trainingToJson(model.settings)},
            {"steps", model.steps},
            {"held_out_accuracy", doubleToJson(model.heldOutAccuracy)},
            {"layer", layers.at(static_cast<std::size_t>(layer)).name},
            {"curve", curveToJson(model.curve)},
            {"tensors", tensorsToJson(model.parameters)}};
}

Expected<ShownModel> trainedModelFromJson(const Json& json)
{
    if (!json.is_object()) return Error{"model: must be an object {spec, vocabulary, training, tensors, ...}"};
    for (const char* key : {"spec", "vocabulary", "training", "steps", "held_out_accuracy", "layer", "curve", "tensors"})
        if (!json.contains(key)) return Error{std::string("model.") + key + ": missing"};
    auto model = std::make_shared<TrainedModel>();
    Expected<ModelSpec> spec = specFromJson(json["spec"]);
    if (!spec) return Error{spec.error()};
    Expected<Vocabulary> vocabulary = vocabularyFromJson(json["vocabulary"], *spec);
    if (!vocabulary) return Error{vocabulary.error()};
    model->vocabulary = std::move(*vocabulary);
    Expected<TrainingSettings> settings = trainingFromJson(json["training"], *spec);
    if (!settings) return Error{settings.error()};
    model->settings = std::move(*settings);
    JsonFields in{json, "model.", {}};
    in.integer("steps", model->steps, 0, 1LL << 50);
    if (!in.error.empty()) return Error{in.error};
    if (!doubleFromJson(json["held_out_accuracy"], model->heldOutAccuracy))
        return Error{"model.held_out_accuracy: must be a number or null"};
    Expected<std::vector<CurvePoint>> curve = curveFromJson(json["curve"]);
    if (!curve) return Error{curve.error()};
    model->curve = std::move(*curve);
    Expected<Index> layer = layerFromJson(json["layer"], *spec);
    if (!layer) return Error{layer.error()};
    Expected<ModelParameters<float>> parameters = tensorsFromJson(json["tensors"], *spec);
    if (!parameters) return Error{parameters.error()};
    model->parameters = std::move(*parameters);
    return ShownModel{std::move(model), *layer};
}

}  // namespace qkv
