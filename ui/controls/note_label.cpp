#include "ui/controls/note_label.hpp"

#include <QLabel>

namespace qkv::ui {

QLabel* noteLabel(QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    label->setForegroundRole(QPalette::PlaceholderText);
    label->hide();
    return label;
}

void setNote(QLabel* note, const QString& text)
{
    note->setText(text);
    note->setVisible(!text.isEmpty());
}

}  // namespace qkv::ui
