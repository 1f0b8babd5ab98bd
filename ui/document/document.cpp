#include "ui/document/document.hpp"

#include <QCoreApplication>
#include <QEventLoop>
#include <QUndoStack>

#include "ui/document/compute_runner.hpp"
#include "ui/document/set_config_command.hpp"
#include "ui/document/set_weights_command.hpp"

namespace qkv::ui {

Document::Document(QObject* parent)
    : QObject(parent), undoStack_(new QUndoStack(this)), runner_(new ComputeRunner(this))
{
    connect(runner_, &ComputeRunner::resultReady, this, [this](std::shared_ptr<const qkv::Result> result) {
        result_ = std::move(result);
        emit resultChanged(result_);
    });
    connect(runner_, &ComputeRunner::failed, this, &Document::computeFailed);
    connect(runner_, &ComputeRunner::busyChanged, this, &Document::busyChanged);
}

Document::~Document()
{
    // A computation still running reads weightsCache_: the runner waits for it as it goes, and
    // it must go before the cache (a child would be deleted after the members).
    delete runner_;
}

bool Document::isComputing() const { return runner_->isBusy(); }

void Document::edit(const qkv::Config& config, const QString& description, EditKey key)
{
    if (config == config_) return;
    undoStack_->push(new SetConfigCommand(this, config_, config, description, static_cast<int>(key)));
}

void Document::setWeights(std::shared_ptr<const qkv::AttentionWeights> weights, const QString& source)
{
    qkv::Config after = config_;
    QString text = tr("Use Generated Weights");
    if (weights) {
        after.d_model = weights->d_model();
        after.withBias = weights->hasBias();
        if (after.headCount < 1 || after.d_model % after.headCount != 0)
            after.headCount = qkv::nearestValidHeadCount(after.d_model, after.headCount);
        text = tr("Load Weights");
    }
    undoStack_->push(new SetWeightsCommand(this, config_, weights_, after, WeightsChoice{std::move(weights), source}, text));
}

void Document::applyWeights(const qkv::Config& config, const WeightsChoice& weights)
{
    weights_ = weights;
    inputs_.weights = weights_.weights;
    emit weightsSourceChanged(weights_.source);
    apply(config);
}

void Document::reset(const qkv::Config& config)
{
    undoStack_->clear();
    apply(config);
}

void Document::apply(const qkv::Config& config)
{
    config_ = config;
    emit configChanged(config_);
    issues_ = qkv::validateConfig(config_);
    if (inputs_.weights && inputs_.weights->d_model() != config_.d_model) {
        // Said at the d_model field, where the user just typed, rather than after computing.
        issues_.push_back({qkv::ConfigField::DModel,
                           tr("The loaded weights have d_model = %1; File > Use Generated Weights frees d_model.")
                               .arg(inputs_.weights->d_model())
                               .toStdString()});
    }
    emit validationChanged(issues_);
    if (issues_.empty()) runner_->request(config_, inputs_, &weightsCache_);
}

void Document::waitUntilIdle() const
{
    while (runner_->isBusy()) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
}

}  // namespace qkv::ui
