#pragma once
// The document's undo commands: SetSessionCommand swaps the session's content (config, weights,
// their provenance, user embeddings) for another; OpenDocumentCommand swaps the whole document
// (content, view options, file and name) when another is opened. Small value-swap commands, as in
// Tiled; snapshots are cheap because weights and embeddings are shared and immutable. View
// options are otherwise not part of them (they are never undo steps of their own).

#include <QUndoCommand>

#include "core/session/session.hpp"
#include "ui/document/document.hpp"

namespace qkv::ui {

class SetSessionCommand : public QUndoCommand {
public:
    // `mergeId` >= 0 merges with the previous command of the same id (typing, dragging).
    SetSessionCommand(Document* document, qkv::Session before, qkv::Session after, const QString& text, int mergeId);

    void undo() override;
    void redo() override;
    int id() const override { return mergeId_; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    Document* document_;
    qkv::Session before_, after_;
    int mergeId_;
};

class OpenDocumentCommand : public QUndoCommand {
public:
    OpenDocumentCommand(Document* document, Document::WholeDocument before, Document::WholeDocument after,
                        const QString& text);

    void undo() override;
    void redo() override;

private:
    Document* document_;
    Document::WholeDocument before_, after_;
};

}  // namespace qkv::ui
