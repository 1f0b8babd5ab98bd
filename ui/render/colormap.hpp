#pragma once
// Colormaps for every figure: perceptually uniform sequential maps (viridis by default) for
// attention weights and a diverging map centred on zero for scores. The defaults stay readable
// with protanopia, deuteranopia and tritanopia: sequential maps by monotonic lightness, the
// diverging default by blue versus orange (never red versus green), checked by
// tests/ui/render/colormap_vision_test.cpp.

#include <QColor>
#include <QString>
#include <QStringList>

#include <array>
#include <string_view>
#include <vector>

#include "core/common/enum_names.hpp"

namespace qkv::ui {

enum class ColormapName { Viridis, Magma, Cividis, Greys, BlueOrange, RedBlue };

// The spellings sessions, settings and the command line use, in menu order (enum_names.hpp).
inline constexpr std::array<EnumName<ColormapName>, 6> kColormapNames{{
    {ColormapName::Viridis, "viridis"},
    {ColormapName::Magma, "magma"},
    {ColormapName::Cividis, "cividis"},
    {ColormapName::Greys, "greys"},
    {ColormapName::BlueOrange, "blueorange"},
    {ColormapName::RedBlue, "redblue"},
}};

// The map every signed view (scores, differences, weights, factors) starts with: blue for
// negative, orange for positive, readable with each common colour-vision deficiency
// (resources/colormaps/generate_blue_orange.py). Red-blue stays selectable by name.
inline constexpr ColormapName kDivergingColormap = ColormapName::BlueOrange;

class Colormap {
public:
    // The shared instance of a named colormap (tables built once, read-only afterwards).
    static const Colormap& get(ColormapName name);
    // Every colormap, in menu order.
    static std::vector<ColormapName> all();

    // t in [0, 1] (clamped; NaN gives the neutral colour). 256 entries, nearest entry.
    QColor map(double t) const;
    // Same as map() but as 0xAARRGGBB for writing QImage pixels quickly.
    unsigned rgb(double t) const;
    // rgb((v - minValue) / (maxValue - minValue)) of each of `count` values into `out` (NaN and
    // +-infinity: the neutral colour; maxValue <= minValue: the middle entry). Branch-free and
    // vectorised: a frame of the heads grid colours h n_q n_k cells (3.1 M at n = 512, h = 12).
    void rgbOfValues(const float* values, std::size_t count, double minValue, double maxValue, unsigned* out) const;
    // Diverging maps have a neutral centre at t = 0.5 (value 0 for symmetric ranges).
    bool isDiverging() const;
    QString displayName() const;
    ColormapName name() const { return name_; }
    // A stable lower-case identifier for settings and files ("viridis", "redblue").
    QString id() const;

    // Colour for cells with no value (NaN, masked): mid grey, drawn hatched where possible.
    static QColor neutralColor();

private:
    Colormap(ColormapName name, const std::array<unsigned, 256>& table);
    ColormapName name_;
    std::array<unsigned, 256> table_;
};

// The id() strings back to names; false when unknown.
bool colormapFromId(const QString& id, ColormapName& name);

}  // namespace qkv::ui
