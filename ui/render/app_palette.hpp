#pragma once
// The application's colours: the desktop's palette (light or dark), a light or dark palette
// forced by the user, and a high-contrast variant of either. Figures on screen take the widget's
// Base and Text (ui/figure_widgets), charts recolour from the palette (chart_palette.hpp), so
// setting the application palette is all a view needs; exported figures keep FigureOptions'
// light defaults whatever the screen shows.
//
// Where the choice comes from, first match wins:
//   QKV_STUDIO_PALETTE=system|light|dark   this run only (testing, screenshots);
//   the setting "view/palette" (the View > Colours menu), "system" unless chosen;
//   the setting "view/highContrast" (View > High Contrast), off unless chosen.
// "system" follows the desktop: the platform theme's palette (QT_QPA_PLATFORMTHEME: KDE, qt6ct,
// gtk3 give theirs), and when the desktop asks for dark (Qt 6.5+: QStyleHints::colorScheme;
// older Qt: GTK_THEME ending ":dark") but the theme's palette is light, the dark palette here.

#include <QPalette>
#include <QString>

#include <array>

#include "core/common/enum_names.hpp"

namespace qkv::ui {

enum class PaletteScheme { System, Light, Dark };

// The spellings the setting and QKV_STUDIO_PALETTE use.
inline constexpr std::array<EnumName<PaletteScheme>, 3> kPaletteSchemeNames{{
    {PaletteScheme::System, "system"},
    {PaletteScheme::Light, "light"},
    {PaletteScheme::Dark, "dark"},
}};

struct Appearance {
    PaletteScheme scheme = PaletteScheme::System;
    bool highContrast = false;
};

// The stored choice, with QKV_STUDIO_PALETTE overriding the scheme (an unknown value is ignored
// with a warning on stderr).
Appearance storedAppearance();
void storeHighContrast(bool on);
void storePaletteScheme(PaletteScheme scheme);

// A palette is dark when its window is (HSL lightness below the middle).
bool isDarkPalette(const QPalette& palette);
// Whether the desktop asks for dark colours (see above); `desktop` is the platform's palette.
bool desktopPrefersDark(const QPalette& desktop);

// Light text on dark grey, the contrast of common dark themes (text on base about 14:1).
QPalette darkPalette();
// White on black (dark) or black on white (light): text, borders and the selection at the
// largest contrast (21:1 text; the selection yellow on black or dark blue on white).
QPalette highContrastPalette(bool dark);

// Sets the application palette for `appearance` (the desktop's palette is read once, before
// the first change, to tell what "system" looks like); with high contrast also a small style
// sheet that frames text fields and check boxes in the text colour (Fusion draws them in a
// shade of the window colour).
void applyAppearance(const Appearance& appearance);

}  // namespace qkv::ui
