#pragma once
// A transparent layer over the main window that outlines one widget (the place a guide step
// points at) and shades the rest lightly. It lets every mouse event through, and follows the
// target as it moves, resizes, scrolls, or its tab is hidden and shown.

#include <QPointer>
#include <QWidget>

#include <functional>

namespace qkv::ui {

class HighlightOverlay : public QWidget {
    Q_OBJECT
public:
    // Covers `window` (its parent) whole, above its other children.
    explicit HighlightOverlay(QWidget* window);

    // The part of the target to outline, in the target's coordinates, asked again whenever the
    // outline follows it (the target's layout may have moved it); empty: the whole target.
    using Focus = std::function<QRect()>;

    // Null: outlines nothing.
    void setTarget(QWidget* target, Focus focus = {});
    QWidget* target() const { return target_; }
    // The outlined rectangle in the window's coordinates: the target's visible part, or of its
    // focus when it has one (empty when nothing of it is shown).
    QRect highlightedRect() const;

signals:
    // The outlined rectangle may have changed (the target changed, moved, was shown or hidden).
    void highlightChanged();

protected:
    void paintEvent(QPaintEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void watchChain(QWidget* from, bool watch);
    void follow();

    QPointer<QWidget> target_;
    Focus focus_;
};

}  // namespace qkv::ui
