#include "ui/mainwindow/file_prompts.hpp"

#include <QFileDialog>
#include <QMessageBox>

#include "ui/views/shown_text.hpp"

namespace qkv::ui {
namespace {
const char* const kFilter =
    QT_TRANSLATE_NOOP("QMessageBox", "QKV Studio sessions (*.qkv.json);;JSON (*.json);;All files (*)");
}  // namespace

FilePrompts FilePrompts::dialogs(QWidget* parent)
{
    FilePrompts prompts;
    prompts.askToSave = [parent](const QString& name) {
        QMessageBox box(QMessageBox::Warning, QMessageBox::tr("Unsaved Changes"),
                        QMessageBox::tr("Save the changes to “%1”?").arg(name),
                        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, parent);
        box.setTextFormat(Qt::PlainText);  // the name is a file name
        box.setInformativeText(QMessageBox::tr("Discarded changes cannot be restored."));
        box.setDefaultButton(QMessageBox::Save);
        return static_cast<QMessageBox::StandardButton>(box.exec());
    };
    prompts.chooseSavePath = [parent](const QString& suggested) {
        QString path =
            QFileDialog::getSaveFileName(parent, QMessageBox::tr("Save Session"), suggested, QMessageBox::tr(kFilter));
        if (!path.isEmpty() && !path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive))
            path += QStringLiteral(".qkv.json");
        return path;
    };
    prompts.chooseOpenPath = [parent](const QString& directory) {
        return QFileDialog::getOpenFileName(parent, QMessageBox::tr("Open Session"), directory,
                                            QMessageBox::tr(kFilter));
    };
    prompts.showError = [parent](const QString& title, const QString& message) {
        showPlainWarning(parent, title, message);
    };
    return prompts;
}

}  // namespace qkv::ui
