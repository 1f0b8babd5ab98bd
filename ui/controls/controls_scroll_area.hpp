#pragma once
// The scroll area that holds the controls. QScrollArea sizes its widget from sizeHint(), which
// Qt computes for the widget's preferred width: a word-wrapped label (the mode's explanation, a
// note under a field) then needs more lines at the width it gets than it was given, and is
// cut. This one gives the widget at least its height for the viewport's width.

#include <QScrollArea>

namespace qkv::ui {

class ControlsScrollArea : public QScrollArea {
    Q_OBJECT
public:
    explicit ControlsScrollArea(QWidget* controls, QWidget* parent = nullptr);

protected:
    void resizeEvent(QResizeEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void fitHeightToWidth();
};

}  // namespace qkv::ui
