#include "ui/mainwindow/file_prompts.hpp"

#include <QFileDialog>
#include <QMessageBox>
#include <QPushButton>

#include "ui/figures/shown_text.hpp"

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
    prompts.askToStopTraining = [parent](const QString& action) {
        QMessageBox box(QMessageBox::Question, QMessageBox::tr("Training in Progress"),
                        QMessageBox::tr("The Train tab's model is not kept. Stop training and %1?").arg(action),
                        QMessageBox::Cancel, parent);
        box.setTextFormat(Qt::PlainText);  // the action may name a file
        box.setInformativeText(
            QMessageBox::tr("Stopping loses the model; your document stays as it is. To keep the model, cancel "
                            "and press Keep in the Train tab."));
        QPushButton* stop = box.addButton(QMessageBox::tr("Stop and Continue"), QMessageBox::AcceptRole);
        box.setDefaultButton(QMessageBox::Cancel);
        box.exec();
        return box.clickedButton() == stop;
    };
    return prompts;
}

}  // namespace qkv::ui
