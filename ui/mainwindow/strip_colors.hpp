#pragma once
// The colours of a strip above the views (the stale-views notice, the long-message bar): its
// own background and text, chosen for a light or a dark theme. The theme is read from Base,
// which a strip does not set (its Window colour is the strip's own). Call again on
// QEvent::PaletteChange.

#include <QColor>
#include <QPalette>
#include <QWidget>

namespace qkv::ui {

struct StripColors {
    QColor background;
    QColor text;
};

inline void applyStripColors(QWidget& strip, const StripColors& light, const StripColors& dark)
{
    const StripColors& chosen = strip.palette().color(QPalette::Base).lightness() < 128 ? dark : light;
    QPalette p = strip.palette();
    if (p.color(QPalette::Window) == chosen.background && p.color(QPalette::WindowText) == chosen.text) return;
    p.setColor(QPalette::Window, chosen.background);
    p.setColor(QPalette::WindowText, chosen.text);
    strip.setPalette(p);
}

}  // namespace qkv::ui
