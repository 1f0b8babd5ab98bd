#pragma once
// The one undo command of the document: swaps the session's content (config, weights, their
// provenance, user embeddings) for another. A small value-swap command, as in Tiled; snapshots
// are cheap because weights and embeddings are shared and immutable. View options are not
// part of it (they are never undo steps).

#include <QUndoCommand>

#include "core/session/session.hpp"

namespace qkv::ui {

class Document;

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

}  // namespace qkv::ui
