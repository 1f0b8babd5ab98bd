// One model learning one task: the settings checked (training_limits.hpp for the fields people
// set), the model's shape from the settings and the task, and the run step by step
// (training_run.hpp).
#include "core/training/training_run.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <sstream>

#include "core/training/number_text.hpp"
#include "core/training/training_defaults.hpp"
#include "core/training/training_limits.hpp"

namespace qkv {

namespace {

constexpr double notEvaluated = std::numeric_limits<double>::quiet_NaN();

// The learning rate is held for this many steps at a time on its way down.
constexpr long scheduleInterval = 10;
// Held-out examples evaluated per forward pass: bounds the activations a large held-out set
// would otherwise keep in the run's workspace (about twice a training batch's rows).
constexpr std::size_t evaluationChunk = 64;

std::string outOf(const std::string& field, const std::string& range, const std::string& value)
{
    return field + " must be " + range + " (it is " + value + ")";
}
std::string number(double value)
{
    std::ostringstream text;
    text << value;
    return text.str();
}

// The training limits (training_limits.hpp), then AdamW's own settings, which no form offers.
Status checkSettings(const TrainingSettings& s)
{
    if (std::optional<FieldProblem> problem = firstFieldProblem(s)) return Error{std::move(problem->message)};
    const AdamWSettings& o = s.optimizer;
    // A warm-up may last as long as a run.
    const auto maxSteps = static_cast<long>(trainingLimit(TrainingField::Steps).maximum);
    if (!(o.beta1 >= 0.0 && o.beta1 < 1.0)) return Error{outOf("beta1", "at least 0 and below 1", number(o.beta1))};
    if (!(o.beta2 >= 0.0 && o.beta2 < 1.0)) return Error{outOf("beta2", "at least 0 and below 1", number(o.beta2))};
    if (!(o.epsilon > 0.0 && o.epsilon < 1.0))
        return Error{outOf("AdamW's epsilon", "greater than 0 and below 1", number(o.epsilon))};
    if (!(o.weightDecay >= 0.0 && o.weightDecay <= 1.0))
        return Error{outOf("the weight decay", "between 0 and 1", number(o.weightDecay))};
    if (!(o.clipNorm >= 0.0 && std::isfinite(o.clipNorm)))
        return Error{outOf("the gradient clipping norm", "0 (no clipping) or more", number(o.clipNorm))};
    if (o.warmupSteps < 0 || o.warmupSteps > maxSteps)
        return Error{outOf("the warm-up", "between 0 and " + withThousandsSeparators(maxSteps) + " steps",
                           std::to_string(o.warmupSteps))};
    return {};
}

// The held-out numbers of `loss` in a curve point.
void recordHeldOut(const BatchLoss& loss, CurvePoint& point)
{
    point.heldOutLoss = loss.loss;
    point.heldOutAccuracy =
        loss.scoredTokens > 0 ? static_cast<double>(loss.correctTokens) / static_cast<double>(loss.scoredTokens) : 0.0;
    point.heldOutSequenceAccuracy =
        loss.sequences > 0 ? static_cast<double>(loss.correctSequences) / static_cast<double>(loss.sequences) : 0.0;
}

// Sums of two evaluations, the loss weighted by scored tokens (both are means over tokens).
void accumulate(BatchLoss& total, const BatchLoss& part)
{
    const auto before = static_cast<double>(total.scoredTokens);
    const auto added = static_cast<double>(part.scoredTokens);
    if (before + added > 0.0) total.loss = (total.loss * before + part.loss * added) / (before + added);
    total.scoredTokens += part.scoredTokens;
    total.correctTokens += part.correctTokens;
    total.sequences += part.sequences;
    total.correctSequences += part.correctSequences;
}

}  // namespace

ModelSpec trainingModelSpec(const TrainingSettings& settings, const TaskData& data)
{
    const TaskShape shape = taskShape(settings.task.kind);
    ModelSpec spec;
    spec.vocabularySize = data.vocabulary().size();
    spec.maxPositions = data.maxSequenceLength();
    spec.d_model = settings.d_model;
    spec.headCount = settings.headCount;
    spec.encoderLayers = data.isSequenceToSequence() ? settings.layers : 0;
    spec.decoderLayers = settings.layers;
    spec.d_ff = shape.mlpMultiple * settings.d_model;
    spec.norm = shape.norm;
    spec.positions = shape.positions;
    spec.scoreForm = settings.variant;
    return spec;
}

Expected<std::unique_ptr<TrainingRun>> TrainingRun::create(const TrainingSettings& settings)
{
    if (Status checked = checkSettings(settings); !checked) return Error{checked.error()};
    Expected<TaskData> data = TaskData::create(settings.task);
    if (!data) return Error{data.error()};

    std::unique_ptr<TrainingRun> run(new TrainingRun());
    run->settings_ = settings;
    run->data_ = std::make_shared<const TaskData>(std::move(data).value());
    const ModelSpec spec = trainingModelSpec(settings, *run->data_);
    if (const std::string problem = spec.problem(); !problem.empty()) return Error{problem};
    run->parameters_ = ModelParameters<float>::initialised(spec, settings.seed);
    run->gradient_ = ModelParameters<float>::zeros(spec);
    run->optimizer_ = std::make_unique<AdamW<float>>(spec, settings.optimizer);
    return run;
}

CurvePoint TrainingRun::step()
{
    const auto start = std::chrono::steady_clock::now();
    std::vector<SequencePair> batch;
    batch.reserve(static_cast<std::size_t>(settings_.batch));
    for (Index i = 0; i < settings_.batch; ++i) batch.push_back(data_->trainingExample(nextExample_++).ids);
    const BatchLoss loss = lossAndGradient(parameters_, batch, gradient_, workspace_);
    // The data fit the model by construction (trainingModelSpec); were a batch ever refused, its
    // untouched gradient must not move the weights.
    if (loss.problem.empty()) {
        followSchedule();
        optimizer_->step(parameters_, gradient_);
    }
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    CurvePoint point;
    point.step = optimizer_->steps();
    point.seconds = seconds_;
    point.loss = loss.loss;
    point.accuracy =
        loss.scoredTokens > 0 ? static_cast<double>(loss.correctTokens) / static_cast<double>(loss.scoredTokens) : 0.0;
    point.heldOutLoss = point.heldOutAccuracy = point.heldOutSequenceAccuracy = notEvaluated;
    curve_.push_back(point);
    return point;
}

BatchLoss TrainingRun::evaluate()
{
    const std::vector<TaskExample>& heldOut = data_->heldOut();
    BatchLoss total;
    std::vector<SequencePair> chunk;
    for (std::size_t begin = 0; begin < heldOut.size(); begin += evaluationChunk) {
        chunk.clear();
        for (std::size_t i = begin; i < std::min(heldOut.size(), begin + evaluationChunk); ++i)
            chunk.push_back(heldOut[i].ids);
        accumulate(total, evaluateLoss(parameters_, chunk, workspace_));
    }
    if (curve_.empty()) {
        // Before the first step: the untrained model's point, so curves start at step 0.
        CurvePoint start;
        start.loss = start.accuracy = notEvaluated;
        curve_.push_back(start);
    }
    recordHeldOut(total, curve_.back());
    return total;
}

double scheduledLearningRate(const TrainingSettings& settings, long step)
{
    const double base = settings.optimizer.learningRate;
    const long warmup = std::max(0L, settings.optimizer.warmupSteps);
    if (step <= warmup || settings.steps <= warmup) return base;
    const double progress =
        std::min(1.0, static_cast<double>(step - warmup) / static_cast<double>(settings.steps - warmup));
    return base * (finalLearningRateFraction +
                   (1.0 - finalLearningRateFraction) * 0.5 * (1.0 + std::cos(std::numbers::pi * progress)));
}

void TrainingRun::followSchedule()
{
    // AdamW keeps one learning rate (its warm-up aside), so a new rate is a new optimiser that
    // carries on from the same step and moments; every scheduleInterval steps, so the copies of
    // the moments cost nothing next to the steps.
    const long next = optimizer_->steps() + 1;
    if (next <= settings_.optimizer.warmupSteps || (next - 1) % scheduleInterval != 0) return;
    AdamWSettings scheduled = settings_.optimizer;
    scheduled.learningRate = scheduledLearningRate(settings_, next);
    if (scheduled.learningRate == optimizer_->settings().learningRate) return;
    auto optimizer = std::make_unique<AdamW<float>>(parameters_.spec, scheduled);
    optimizer->restore(optimizer_->steps(), optimizer_->firstMoment(), optimizer_->secondMoment());
    optimizer_ = std::move(optimizer);
}

long TrainingRun::stepsDone() const { return optimizer_ ? optimizer_->steps() : 0; }

}  // namespace qkv
