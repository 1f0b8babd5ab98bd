#include "ui/document/set_config_command.hpp"

#include "ui/document/document.hpp"

namespace qkv::ui {

SetConfigCommand::SetConfigCommand(Document* document, qkv::Config before, qkv::Config after,
                                   const QString& text, int mergeId)
    : QUndoCommand(text), document_(document), before_(std::move(before)), after_(std::move(after)),
      mergeId_(mergeId)
{
}

void SetConfigCommand::undo() { document_->apply(before_); }

void SetConfigCommand::redo() { document_->apply(after_); }

bool SetConfigCommand::mergeWith(const QUndoCommand* other)
{
    if (other->id() != id() || id() < 0) return false;
    after_ = static_cast<const SetConfigCommand*>(other)->after_;
    return true;
}

}  // namespace qkv::ui
