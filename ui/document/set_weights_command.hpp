#pragma once
// Undo command that swaps the layer's weights (loaded from a file, or the generated ones) and
// the configuration they imply (d_model and biases come from the file).

#include <memory>

#include <QString>
#include <QUndoCommand>

#include "core/config/config.hpp"
#include "core/weights/attention_weights.hpp"

namespace qkv::ui {

class Document;

// Weights as the document holds them: null for generated, else the file's, with its name.
struct WeightsChoice {
    std::shared_ptr<const qkv::AttentionWeights> weights;
    QString source;  // the file's path; empty for generated weights
};

class SetWeightsCommand : public QUndoCommand {
public:
    SetWeightsCommand(Document* document, qkv::Config configBefore, WeightsChoice before,
                      qkv::Config configAfter, WeightsChoice after, const QString& text);

    void undo() override;
    void redo() override;

private:
    Document* document_;
    qkv::Config configBefore_, configAfter_;
    WeightsChoice before_, after_;
};

}  // namespace qkv::ui
