#include "ui/document/set_weights_command.hpp"

#include "ui/document/document.hpp"

namespace qkv::ui {

SetWeightsCommand::SetWeightsCommand(Document* document, qkv::Config configBefore, WeightsChoice before,
                                     qkv::Config configAfter, WeightsChoice after, const QString& text)
    : QUndoCommand(text), document_(document), configBefore_(std::move(configBefore)),
      configAfter_(std::move(configAfter)), before_(std::move(before)), after_(std::move(after))
{
}

void SetWeightsCommand::undo() { document_->applyWeights(configBefore_, before_); }

void SetWeightsCommand::redo() { document_->applyWeights(configAfter_, after_); }

}  // namespace qkv::ui
