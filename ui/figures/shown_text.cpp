#include "ui/figures/shown_text.hpp"

#include <QMessageBox>

namespace qkv::ui {

QString richText(const QString& html) { return QStringLiteral("<qt>%1</qt>").arg(html); }

QString plainAsRichText(const QString& text)
{
    return richText(text.toHtmlEscaped().replace(QLatin1Char('\n'), QLatin1String("<br>")));
}

void showPlainWarning(QWidget* parent, const QString& title, const QString& message)
{
    QMessageBox box(QMessageBox::Warning, title, message, QMessageBox::Ok, parent);
    box.setTextFormat(Qt::PlainText);
    box.exec();
}

}  // namespace qkv::ui
