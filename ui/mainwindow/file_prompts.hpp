#pragma once
// The questions the File menu asks (save changes? where to?) and how it reports a failure, as
// replaceable functions: the app uses dialogs, tests answer without a dialog and read the
// messages.

#include <QMessageBox>
#include <QString>

#include <functional>

class QWidget;

namespace qkv::ui {

struct FilePrompts {
    // Unsaved changes in the document called `name`: Save, Discard or Cancel.
    std::function<QMessageBox::StandardButton(const QString& name)> askToSave;
    // A path to save to, starting at `suggested`; empty cancels.
    std::function<QString(const QString& suggested)> chooseSavePath;
    // A session to open, starting in `directory`; empty cancels.
    std::function<QString(const QString& directory)> chooseOpenPath;
    // A failure, said in a message box: what was being done, and why it failed.
    std::function<void(const QString& title, const QString& message)> showError;
    // A model is training (or trained and not kept) and would be lost: stop it and go on to
    // `action` ("close", "open another session")? True: stop and go on; false: cancel.
    std::function<bool(const QString& action)> askToStopTraining;

    // Dialogs over `parent`.
    static FilePrompts dialogs(QWidget* parent);
};

}  // namespace qkv::ui
