#include "core/training/training_report.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/training/variant_comparison.hpp"

namespace qkv {

namespace {

using Json = nlohmann::json;

// Points of the training loss averaged for `train_loss` (one batch is noisy).
constexpr std::size_t kTrainLossWindow = 50;

std::string_view variantName(const TrainingRun& run) { return nameOf(kScoreFormNames, run.settings().variant); }

// The shortest text that reads back to the same double ("0.1", "nan").
std::string numberText(double value)
{
    char text[32];
    return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
}

double metricOf(const CurvePoint& point, const TrainingTarget& target)
{
    return target.metric == "heldout_sequence_accuracy" ? point.heldOutSequenceAccuracy : point.heldOutAccuracy;
}

// The last point with held-out numbers (the final evaluation), if any.
const CurvePoint* lastEvaluation(const std::vector<CurvePoint>& curve)
{
    for (auto point = curve.rbegin(); point != curve.rend(); ++point)
        if (!std::isnan(point->heldOutLoss)) return &*point;
    return nullptr;
}

// The untrained model's point (step 0, the first held-out evaluation) has no training batch.
bool isStep(const CurvePoint& point) { return point.step > 0; }

double meanRecentTrainingLoss(const std::vector<CurvePoint>& curve)
{
    const auto steps = static_cast<std::size_t>(std::count_if(curve.begin(), curve.end(), isStep));
    const std::size_t count = std::min(kTrainLossWindow, steps);
    if (count == 0) return std::numeric_limits<double>::quiet_NaN();
    double sum = 0.0;
    for (std::size_t i = curve.size() - count; i < curve.size(); ++i) sum += curve[i].loss;
    return sum / static_cast<double>(count);
}

// A score of HeadScores, or null where it was not measured (-1: another kind of layer).
Json scoreJson(double score) { return score < 0.0 ? Json(nullptr) : Json(score); }

// Every attention layer with its heads' effective rank and the task's scores.
Json layersJson(const TrainingRun& run, const std::vector<HeadScores>& scores)
{
    const TaskKind task = run.settings().task.kind;
    Json layers = Json::array();
    const std::vector<AttentionLayerInfo> infos = attentionLayers(run.spec());
    for (std::size_t l = 0; l < infos.size(); ++l) {
        Json heads = Json::array();
        for (const HeadScores& s : scores) {
            if (s.layer != static_cast<Index>(l)) continue;
            Json head = {{"head", s.head + 1}, {"effective_rank", s.effectiveRank}};
            if (task == TaskKind::Induction) {
                head["induction"] = scoreJson(s.induction);
                head["previous_token"] = scoreJson(s.previousToken);
            } else {
                head["alignment"] = scoreJson(s.alignment);
            }
            heads.push_back(std::move(head));
        }
        layers.push_back({{"name", infos[l].name}, {"kind", modeName(infos[l].kind)}, {"heads", std::move(heads)}});
    }
    return layers;
}

Json variantJson(const TrainingRun& run, const std::vector<HeadScores>& scores)
{
    const std::vector<CurvePoint>& curve = run.curve();
    const CurvePoint* evaluation = lastEvaluation(curve);
    const auto heldOut = [&](double CurvePoint::*member) {
        return evaluation ? Json(evaluation->*member) : Json(nullptr);
    };
    const TrainingSettings& t = run.settings();
    return {{"parameters", run.parameters().count()},
            {"attention_parameters", attentionParameterCount(run.spec())},
            {"score_parameters", scoreParameterCount(run.spec())},
            {"steps", run.stepsDone()},
            {"seconds", curve.empty() ? 0.0 : curve.back().seconds},
            {"train_loss", meanRecentTrainingLoss(curve)},
            {"heldout_loss", heldOut(&CurvePoint::heldOutLoss)},
            {"heldout_accuracy", heldOut(&CurvePoint::heldOutAccuracy)},
            {"heldout_sequence_accuracy", heldOut(&CurvePoint::heldOutSequenceAccuracy)},
            {"vocabulary", run.data().vocabulary().tokens()},
            {"settings",
             {{"d_model", t.d_model},
              {"heads", t.headCount},
              {"layers", t.layers},
              {"batch", t.batch},
              {"learning_rate", t.optimizer.learningRate},
              {"seed", t.seed}}},
            {"layers", layersJson(run, scores)}};
}

// Each full W_i's singular values and how many carry 99% of their energy (d_k is what a
// factored head could hold).
void addFullSpectra(const TrainingRun& run, const std::vector<HeadScores>& scores, Json& list)
{
    if (run.settings().variant != ScoreForm::Full) return;
    const std::vector<AttentionLayerInfo> infos = attentionLayers(run.spec());
    for (const HeadScores& s : scores)
        list.push_back({{"layer", infos.at(static_cast<std::size_t>(s.layer)).name},
                        {"head", s.head + 1},
                        {"d_k", run.spec().d_k()},
                        {"energy_99_count", effectiveRank(s.singularValues, 0.99)},
                        {"singular_values", s.singularValues}});
}

Json comparisonJson(const std::vector<const TrainingRun*>& runs, const std::vector<std::vector<HeadScores>>& scores)
{
    Json variants = Json::array(), spectra = Json::array();
    std::vector<VariantOutcome> outcomes;
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const TrainingRun& run = *runs[r];
        const VariantOutcome outcome = variantOutcome(run.spec(), run.curve(), run.settings().task.kind);
        const std::optional<CurvePoint>& reached = outcome.atTarget;
        variants.push_back({{"variant", variantName(run)},
                            {"reached_target", reached.has_value()},
                            {"step", reached ? Json(reached->step) : Json(nullptr)},
                            {"seconds", reached ? Json(reached->seconds) : Json(nullptr)},
                            {"attention_parameters", outcome.attentionParameters},
                            {"score_parameters", outcome.scoreParameters}});
        outcomes.push_back(outcome);
        addFullSpectra(run, scores[r], spectra);
    }
    const std::optional<std::size_t> first = firstToTarget(outcomes);
    return {{"first_to_target", first ? Json(variantName(*runs[*first])) : Json(nullptr)},
            {"variants", std::move(variants)},
            {"full_w_i", std::move(spectra)}};
}

}  // namespace

std::string TrainingTarget::description() const
{
    const std::string what =
        metric == "heldout_sequence_accuracy" ? "held-out whole-sequence accuracy" : "held-out token accuracy";
    return what + " >= " + numberText(threshold * 100.0) + "%";
}

TrainingTarget trainingTarget(TaskKind task)
{
    switch (task) {
    case TaskKind::Reverse:
    case TaskKind::Copy:
    case TaskKind::Sort: return {"heldout_sequence_accuracy", 0.99};
    case TaskKind::Translate:
    case TaskKind::Induction: return {"heldout_accuracy", 0.95};
    }
    return {"heldout_accuracy", 0.95};
}

std::optional<CurvePoint> firstAtTarget(const std::vector<CurvePoint>& curve, TaskKind task)
{
    const TrainingTarget target = trainingTarget(task);
    for (const CurvePoint& point : curve)
        if (!std::isnan(point.heldOutLoss) && metricOf(point, target) >= target.threshold) return point;
    return std::nullopt;
}

std::string trainingLogCsv(const std::vector<const TrainingRun*>& runs)
{
    std::string csv = "step,variant,loss,accuracy,seconds\n";
    for (const TrainingRun* run : runs)
        for (const CurvePoint& point : run->curve()) {
            if (!isStep(point)) continue;
            csv += std::to_string(point.step) + "," + std::string(variantName(*run)) + "," + numberText(point.loss) +
                   "," + numberText(point.accuracy) + "," + numberText(point.seconds) + "\n";
        }
    return csv;
}

std::string trainingReportJson(const std::vector<const TrainingRun*>& runs)
{
    Json report = Json::object();
    if (!runs.empty()) {
        const TrainingRun& run = *runs.front();
        const TrainingTarget target = trainingTarget(run.settings().task.kind);
        report["task"] = nameOf(kTaskKindNames, run.settings().task.kind);
        report["data"] = run.data().description();
        report["target"] = {{"metric", target.metric}, {"threshold", target.threshold}, {"description", target.description()}};
    }
    std::vector<std::vector<HeadScores>> scores;
    Json variants = Json::object();
    for (const TrainingRun* run : runs) {
        scores.push_back(scoreHeads(run->parameters(), run->settings().task.kind, run->data().heldOut()));
        variants[std::string(variantName(*run))] = variantJson(*run, scores.back());
    }
    report["variants"] = std::move(variants);
    report["comparison"] = comparisonJson(runs, scores);
    return report.dump(2) + "\n";
}

}  // namespace qkv
