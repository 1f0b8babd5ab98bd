#pragma once
// The positional encodings as a combo box offers them, for the Positions control and the Open
// Checkpoint dialog alike.

class QComboBox;

namespace qkv::ui {

// One item per qkv::PositionalEncoding (its value as the item's data), and a tooltip that says
// what each does.
void addPositionalChoices(QComboBox* box);

}  // namespace qkv::ui
