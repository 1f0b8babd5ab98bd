#pragma once
// A visible focus indicator for the widgets the style draws none for: charts (QChartView), tables
// and lists, and any widget that paints itself and takes the keyboard (the sentences' chips).
// Fusion draws focus on buttons, combo boxes, line edits, spin boxes and tabs itself; every other
// focused widget of the window gets a 2-pixel ring in the palette's Highlight colour, painted
// over the widget's own painting (an event filter on its paint events: no widget changes, no
// extra child that assistive technology would meet), the heatmap canvases included. A widget that
// draws its own focus frame opts out with the dynamic property `drawsOwnFocusFrame` set to true
// (kDrawsOwnFocusFrame), so no widget ever shows two.

#include <QObject>
#include <QPointer>

class QWidget;

namespace qkv::ui {

// The property a self-painting widget sets (true) when it draws its own focus frame.
inline constexpr const char* kDrawsOwnFocusFrame = "drawsOwnFocusFrame";

class FocusRing : public QObject {
    Q_OBJECT
public:
    // Follows the focus inside `window` (the ring's owner) from now on.
    explicit FocusRing(QWidget* window);

    // The widget the ring is painted on now (a scroll area's viewport), or null.
    QWidget* ringedWidget() const { return painted_; }
    // Whether `widget`, focused, gets the ring.
    static bool needsRing(const QWidget* widget);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void follow(QWidget* focused);

    QWidget* window_;
    QPointer<QWidget> painted_;
    bool painting_ = false;
};

}  // namespace qkv::ui
