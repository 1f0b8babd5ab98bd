#include "ui/controls/field_message.hpp"

#include <QEvent>

namespace qkv::ui {

FieldMessage::FieldMessage(QWidget* parent) : QLabel(parent)
{
    setWordWrap(true);
    setTextFormat(Qt::PlainText);  // messages quote what the user typed
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setAccessibleName(tr("Validation message"));
    updateColors();
    hide();
}

void FieldMessage::setMessage(const QString& message)
{
    setText(message);
    setVisible(!message.isEmpty());
}

void FieldMessage::changeEvent(QEvent* event)
{
    QLabel::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) updateColors();
}

void FieldMessage::updateColors()
{
    // A red that reads on light and dark window colours alike.
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    const QColor red = dark ? QColor(0xff, 0x80, 0x80) : QColor(0xc0, 0x1c, 0x28);
    QPalette p = palette();
    if (p.color(QPalette::WindowText) == red) return;
    p.setColor(QPalette::WindowText, red);
    setPalette(p);
}

}  // namespace qkv::ui
