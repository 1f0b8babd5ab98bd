#include "ui/render/colormap.hpp"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

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
