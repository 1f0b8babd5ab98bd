#include "ui/render/colormap.hpp"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace qkv::ui {
namespace {
#include "ui/render/colormap_tables.inc"
#include "ui/render/colormap_blue_orange.inc"
}  // namespace

Colormap::Colormap(ColormapName name, const std::array<unsigned, 256>& table) : name_(name), table_(table)
{
    for (unsigned& entry : table_) entry |= 0xff000000u;
}

const Colormap& Colormap::get(ColormapName name)
{
    static const Colormap viridis(ColormapName::Viridis, viridisTable);
    static const Colormap magma(ColormapName::Magma, magmaTable);
    static const Colormap cividis(ColormapName::Cividis, cividisTable);
    static const Colormap greys(ColormapName::Greys, greysTable);
    static const Colormap blueOrange(ColormapName::BlueOrange, blueOrangeTable);
    static const Colormap redBlue(ColormapName::RedBlue, redBlueTable);
    switch (name) {
    case ColormapName::Viridis: return viridis;
    case ColormapName::Magma: return magma;
    case ColormapName::Cividis: return cividis;
    case ColormapName::Greys: return greys;
    case ColormapName::BlueOrange: return blueOrange;
    case ColormapName::RedBlue: return redBlue;
    }
    return viridis;
}

std::vector<ColormapName> Colormap::all()
{
    std::vector<ColormapName> names;
    for (const auto& entry : kColormapNames) names.push_back(entry.value);
    return names;
}

unsigned Colormap::rgb(double t) const
{
    if (std::isnan(t)) return neutralColor().rgba();
    const double clamped = std::clamp(t, 0.0, 1.0);
    // Rounds to the nearest entry; clamped >= 0, so adding 0.5 and truncating is lround without
    // its library call (this runs for every cell of every heatmap).
    const auto index = static_cast<std::size_t>(clamped * 255.0 + 0.5);
    return table_[index];
}

void Colormap::rgbOfValues(const float* values, std::size_t count, double minValue, double maxValue,
                           unsigned* out) const
{
    // Two passes per block of values: the table index of each (in double, as rgb() computes it:
    // t scaled to 0..255, plus 0.5, truncated), which the compiler vectorises, then one table load
    // each. Index 256 is the neutral colour, for NaN and +-infinity. Written so that GCC 12
    // vectorises it: the clamps are comparisons (a NaN becomes 0, never an integer conversion of
    // NaN), and v - v is 0 exactly for a finite v (NaN for NaN and +-infinity; a test on fabs
    // kept the loop scalar).
    const double span = maxValue - minValue;
    const double scale = span > 0 ? 255.0 / span : 0.0;
    const double base = span > 0 ? 0.5 : 128.0;  // rgb(0.5) when the range is empty
    std::array<unsigned, 257> entries;
    std::copy(table_.begin(), table_.end(), entries.begin());
    entries[256] = neutralColor().rgba();
    constexpr std::size_t kBlock = 512;
    std::array<std::int32_t, kBlock> index;
    for (std::size_t start = 0; start < count; start += kBlock) {
        const std::size_t n = std::min(kBlock, count - start);
        const float* v = values + start;
        for (std::size_t i = 0; i < n; ++i) {
            const float value = v[i];
            const bool finite = value - value == 0.0f;
            double x = (static_cast<double>(value) - minValue) * scale + base;
            x = x > 0.0 ? x : 0.0;
            x = x < 255.5 ? x : 255.5;
            const auto entry = static_cast<std::int32_t>(x);
            index[i] = finite ? entry : 256;
        }
        unsigned* o = out + start;
        for (std::size_t i = 0; i < n; ++i) o[i] = entries[static_cast<std::size_t>(index[i])];
    }
}

QColor Colormap::map(double t) const { return QColor::fromRgba(rgb(t)); }

bool Colormap::isDiverging() const { return name_ == ColormapName::BlueOrange || name_ == ColormapName::RedBlue; }

QString Colormap::displayName() const
{
    switch (name_) {
    case ColormapName::Viridis: return QCoreApplication::translate("Colormap", "Viridis");
    case ColormapName::Magma: return QCoreApplication::translate("Colormap", "Magma");
    case ColormapName::Cividis: return QCoreApplication::translate("Colormap", "Cividis");
    case ColormapName::Greys: return QCoreApplication::translate("Colormap", "Greys");
    case ColormapName::BlueOrange: return QCoreApplication::translate("Colormap", "Blue-orange (±)");
    case ColormapName::RedBlue: return QCoreApplication::translate("Colormap", "Red-blue (±)");
    }
    return {};
}

QString Colormap::id() const
{
    const std::string_view id = nameOf(kColormapNames, name_);
    return QString::fromLatin1(id.data(), static_cast<qsizetype>(id.size()));
}

QColor Colormap::neutralColor() { return QColor(0x9a, 0x9a, 0x9a); }

bool colormapFromId(const QString& id, ColormapName& name) { return parseName(kColormapNames, id.toStdString(), name); }

}  // namespace qkv::ui
