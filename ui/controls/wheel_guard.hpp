#pragma once
// The controls panel scrolls: the mouse wheel over a spin box, combo box or slider must scroll
// the panel, not change d_model or the mode on the way. guardWheel() makes those fields take
// the wheel only once they have focus (a click or Tab), as most settings panels do.

class QWidget;

namespace qkv::ui {

// Every spin box, combo box and slider under `root`, now and never again for new children.
void guardWheel(QWidget* root);

}  // namespace qkv::ui
