#include "ui/controls/wheel_guard.hpp"

#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QEvent>
#include <QWidget>

namespace qkv::ui {
namespace {

class WheelGuard : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::Wheel && !static_cast<QWidget*>(watched)->hasFocus()) {
            event->ignore();  // goes on to the parents: the scroll area scrolls
            return true;
        }
        return QObject::eventFilter(watched, event);
    }
};

void guard(QWidget* field, QObject* filter)
{
    field->setFocusPolicy(Qt::StrongFocus);  // no focus from the wheel either
    field->installEventFilter(filter);
}

}  // namespace

void guardWheel(QWidget* root)
{
    auto* filter = new WheelGuard(root);
    for (auto* w : root->findChildren<QAbstractSpinBox*>()) guard(w, filter);
    for (auto* w : root->findChildren<QComboBox*>()) guard(w, filter);
    for (auto* w : root->findChildren<QAbstractSlider*>()) guard(w, filter);
}

}  // namespace qkv::ui
