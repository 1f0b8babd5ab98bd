#include "ui/document/document.hpp"

#include <QCoreApplication>
#include <QEventLoop>
#include <QUndoStack>

#include "ui/document/compute_runner.hpp"
#include "ui/document/set_config_command.hpp"

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

Document::~Document() = default;

bool Document::isComputing() const { return runner_->isBusy(); }

void Document::edit(const qkv::Config& config, const QString& description, EditKey key)
{
    if (config == config_) return;
    undoStack_->push(new SetConfigCommand(this, config_, config, description, static_cast<int>(key)));
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
    emit validationChanged(issues_);
    if (issues_.empty()) runner_->request(config_, inputs_);
}

void Document::waitUntilIdle() const
{
    while (runner_->isBusy()) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
}

}  // namespace qkv::ui
