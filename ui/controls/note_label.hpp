#pragma once
// A note under a control: word-wrapped, plain text (notes quote the user's words and files), in
// the placeholder colour, shown only while it says something.

#include <QString>

class QLabel;
class QWidget;

namespace qkv::ui {

// A hidden note label.
QLabel* noteLabel(QWidget* parent);
// Sets the note's text and shows it, or hides it when `text` is empty.
void setNote(QLabel* note, const QString& text);

}  // namespace qkv::ui
