#pragma once
// Text styles every figure shares.

#include <QFont>

#include <cmath>

namespace qkv::ui {

// A figure's title: the base font, bold and 10 % larger.
inline QFont figureTitleFont(const QFont& base)
{
    QFont font = base;
    font.setBold(true);
    if (font.pointSizeF() > 0) font.setPointSizeF(font.pointSizeF() * 1.1);
    else if (font.pixelSize() > 0) font.setPixelSize(static_cast<int>(std::lround(font.pixelSize() * 1.1)));
    return font;
}

}  // namespace qkv::ui
