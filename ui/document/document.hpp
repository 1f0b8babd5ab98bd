#pragma once
// The one document: Config + user inputs, the undo stack, and the latest Result.
// Every edit goes through edit() as an undoable command; views only read results
// (design.md section 1). While the config is invalid, the last valid Result stays.

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

#include "core/config/validation.hpp"
#include "core/pipeline/compute.hpp"
#include "ui/document/set_weights_command.hpp"

class QUndoStack;

namespace qkv::ui {

class ComputeRunner;

// Which control an edit came from; consecutive edits of the same key merge into one undo step
// (typing a sentence, dragging a slider).
enum class EditKey {
    None = -1,
    SourceText = 1,
    TargetText,
    DModel,
    Heads,
    Seed,
    ScaleQuery,
    ScaleKey,
    ScaleValue,
    ScaleOutput,
};

class Document : public QObject {
    Q_OBJECT
public:
    explicit Document(QObject* parent = nullptr);
    ~Document() override;

    const qkv::Config& config() const { return config_; }
    const qkv::UserInputs& inputs() const { return inputs_; }
    // The last valid result (null before the first one).
    std::shared_ptr<const qkv::Result> result() const { return result_; }
    const std::vector<qkv::ValidationIssue>& issues() const { return issues_; }
    bool isValid() const { return issues_.empty(); }
    bool isComputing() const;
    QUndoStack* undoStack() const { return undoStack_; }
    ComputeRunner* runner() const { return runner_; }

    // The single entry point for edits: undoable, merged with the previous edit of `key`.
    void edit(const qkv::Config& config, const QString& description, EditKey key = EditKey::None);
    // Uses weights loaded from `source` (undoable): d_model and the biases follow the file, and
    // h moves to the nearest valid head count if it no longer divides d_model. A null
    // `weights` returns to the generated weights.
    void setWeights(std::shared_ptr<const qkv::AttentionWeights> weights, const QString& source);
    // The loaded weights' file, or empty while the weights are generated.
    const QString& weightsSource() const { return weights_.source; }
    // Replaces the configuration without an undo step (start-up, restoring a session).
    void reset(const qkv::Config& config);
    // Blocks (processing events) until no computation is running or waiting; for tests,
    // benchmarks and export.
    void waitUntilIdle() const;

signals:
    void configChanged(const qkv::Config& config);
    void validationChanged(const std::vector<qkv::ValidationIssue>& issues);
    void resultChanged(std::shared_ptr<const qkv::Result> result);
    void computeFailed(const QString& message);
    void busyChanged(bool busy);
    void weightsSourceChanged(const QString& source);

private:
    friend class SetConfigCommand;
    friend class SetWeightsCommand;
    void apply(const qkv::Config& config);
    void applyWeights(const qkv::Config& config, const WeightsChoice& weights);

    qkv::Config config_;
    qkv::UserInputs inputs_;
    WeightsChoice weights_;  // inputs_.weights shares the file's weights while they are in use
    qkv::GeneratedWeightsCache weightsCache_;
    std::shared_ptr<const qkv::Result> result_;
    std::vector<qkv::ValidationIssue> issues_;
    QUndoStack* undoStack_;
    ComputeRunner* runner_;
};

}  // namespace qkv::ui
