#pragma once
// Text a widget shows is plain (shown as it is: a token "<s>" stays "<s>") or rich (HTML
// whose every piece of data went through toHtmlEscaped). Qt's default, Qt::AutoText, guesses
// from the text itself, so data that looks like a tag (SentencePiece's "<s>" and "<unk>", a
// file named "<b>.json") would be read as markup and vanish. Labels that show data set
// Qt::PlainText; tool tips and message boxes, which have no such setting, go through here.

#include <QString>

class QWidget;

namespace qkv::ui {

// `html` marked as rich text, whatever its first characters look like (a tool tip or a
// QMessageBox reads it as HTML).
QString richText(const QString& html);

// `text` as rich text that shows exactly `text`: escaped, its line breaks kept.
QString plainAsRichText(const QString& text);

// A modal warning whose message is shown as plain text (file names and errors quote data).
void showPlainWarning(QWidget* parent, const QString& title, const QString& message);

}  // namespace qkv::ui
