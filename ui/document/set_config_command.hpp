#pragma once
// Undo command that swaps one Config for another (a small value-swap command, as in Tiled).

#include <QUndoCommand>

#include "core/config/config.hpp"

namespace qkv::ui {

class Document;

class SetConfigCommand : public QUndoCommand {
public:
    SetConfigCommand(Document* document, qkv::Config before, qkv::Config after, const QString& text,
                     int mergeId);

    void undo() override;
    void redo() override;
    int id() const override { return mergeId_; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    Document* document_;
    qkv::Config before_, after_;
    int mergeId_;
};

}  // namespace qkv::ui
