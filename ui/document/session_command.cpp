#include "ui/document/session_command.hpp"

#include "ui/document/document.hpp"

namespace qkv::ui {

SetSessionCommand::SetSessionCommand(Document* document, qkv::Session before, qkv::Session after, const QString& text,
                                     int mergeId)
    : QUndoCommand(text), document_(document), before_(std::move(before)), after_(std::move(after)), mergeId_(mergeId)
{
}

void SetSessionCommand::undo() { document_->applyContent(before_); }

void SetSessionCommand::redo() { document_->applyContent(after_); }

OpenDocumentCommand::OpenDocumentCommand(Document* document, Document::WholeDocument before,
                                         Document::WholeDocument after, const QString& text)
    : QUndoCommand(text), document_(document), before_(std::move(before)), after_(std::move(after))
{
}

void OpenDocumentCommand::undo() { document_->showWholeDocument(before_); }

void OpenDocumentCommand::redo() { document_->showWholeDocument(after_); }

bool SetSessionCommand::mergeWith(const QUndoCommand* other)
{
    if (other->id() != id() || id() < 0) return false;
    after_ = static_cast<const SetSessionCommand*>(other)->after_;
    return true;
}

}  // namespace qkv::ui
