#pragma once
// View > High Contrast and View > Colours (follow the desktop, light, dark): the choices are
// stored (ui/render/app_palette.hpp) and applied to the whole application at once.

class QMenu;

namespace qkv::ui {

// Appends a separator, the checkable High Contrast action and the Colours submenu to `view`.
void addAppearanceActions(QMenu* view);

}  // namespace qkv::ui
