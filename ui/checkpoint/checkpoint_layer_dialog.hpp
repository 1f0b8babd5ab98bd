#pragma once
// File > Open Checkpoint's second step: the attention layers a checkpoint holds, one row each
// (index, module path, kind, h, g, d_model, family), and the one the user picks. Without a
// config.json the checkpoint does not say h: the dialog asks for it and lists the layers again
// with that h (the headers are read again, never the weights). The Positions choice offers the
// positions for the selected layer: when the checkpoint fixes them it is disabled and says why;
// otherwise the user's choice is used (core applyCheckpointLayerSettings), the family's usual
// preselected.

#include <QDialog>

#include <optional>

#include "core/checkpoint/checkpoint.hpp"

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace qkv::ui {

class CheckpointLayerDialog : public QDialog {
    Q_OBJECT
public:
    explicit CheckpointLayerDialog(qkv::Checkpoint checkpoint, QWidget* parent = nullptr);

    // The checkpoint as last listed (with the asked h when there is no config.json).
    const qkv::Checkpoint& checkpoint() const { return checkpoint_; }
    // The selected layer, if any.
    std::optional<qkv::CheckpointLayer> selectedLayer() const;
    void selectLayer(int index);
    // The positions chosen for the selected layer (the fixed ones when the checkpoint fixes them).
    // The positions chosen; nothing when the layer reads the model's own input, whose X holds
    // the model's learned positions ("Learned: the model's own", offered and preselected then).
    std::optional<qkv::PositionalEncoding> chosenPositions() const;

    // For tests.
    QTableWidget* table() const { return table_; }
    QSpinBox* headCountBox() const { return headCount_; }  // null when config.json gives h
    QLabel* messageLabel() const { return message_; }
    QComboBox* positionsBox() const { return positions_; }
    QLabel* positionsNote() const { return positionsNote_; }

private:
    void fillTable();
    // "sliding 4096" or "global" for a causal layer of a model with sliding layers; else empty.
    QString windowText(const qkv::CheckpointLayer& layer) const;
    void reopenWithHeadCount(int headCount);
    void showPositionsOfSelectedLayer();

    qkv::Checkpoint checkpoint_;
    QLabel* source_ = nullptr;
    QSpinBox* headCount_ = nullptr;
    QTableWidget* table_ = nullptr;
    QLabel* message_ = nullptr;
    QComboBox* positions_ = nullptr;
    QLabel* positionsNote_ = nullptr;
    std::optional<int> usualPositions_;  // the usual positions item of the layer shown (when not fixed)
    QDialogButtonBox* buttons_ = nullptr;
};

}  // namespace qkv::ui
