#pragma once
// File > New, Open…, Save, Save As…, Open Recent and Examples, and the question before unsaved
// changes are lost. Sessions are read and written off the GUI thread (they
// can be hundreds of MB); a file that cannot be read changes nothing, a save that fails loses
// nothing (core's writeSession is atomic), and both say why through FilePrompts::showError.

#include <QObject>
#include <QString>

#include <functional>

#include "ui/mainwindow/file_prompts.hpp"
#include "ui/mainwindow/recent_files.hpp"

class QWidget;

namespace qkv::ui {

class Document;
struct Example;

class DocumentFiles : public QObject {
    Q_OBJECT
public:
    DocumentFiles(Document* document, QWidget* window);

    void setPrompts(FilePrompts prompts) { prompts_ = std::move(prompts); }
    const FilePrompts& prompts() const { return prompts_; }
    const RecentFiles& recentFiles() const { return recent_; }

    // ---- the menu's actions ------------------------------------------------------------------
    void newDocument();
    void open();  // asks for a file
    bool save();  // Save As… when the document has no file
    bool saveAs();
    void openExample(const Example& example);
    void applyScenario(const Example& example);

    // ---- the steps, for the actions and tests --------------------------------------------------
    // Reads `path` off the GUI thread; when it is a valid session, asks about unsaved changes
    // and opens it (Document::open: one undo step). Returns the error (also shown), or empty
    // (opened, or the user cancelled).
    QString openFile(const QString& path);
    // Writes the session to `path` (atomically); on success it becomes the document's file.
    // Refused while the settings are invalid (the file could not be opened again). Returns the
    // error (also shown), or empty.
    QString saveTo(const QString& path);
    // Before unsaved changes would be lost: Save, Discard or Cancel. True to go on (saved or
    // discarded), false when cancelled or the save failed.
    bool maybeSave();
    // Before the document is replaced or the window closes, on the way to `action` ("close"):
    // stop the training that has a model not kept (asked when unkeptWork says so), then
    // maybeSave(). True to go on; the caller then stops the training (replacingDocument()).
    bool mayReplace(const QString& action);
    // Before anything opens as the document (a session, an example, a checkpoint's or a model's
    // layer), the one question everywhere: mayReplace(action), then replacingDocument() (loads and
    // the training of the document before are dropped). True to go on.
    bool beginReplacing(const QString& action);
    // Before new weights come into the document (a weights file), on the way to `action`: stop the training whose model is not kept, asked as
    // mayReplace asks. True to go on, and the training is then dropped (trainingDropped()); the
    // document itself stays (the new weights are an undoable edit of it).
    bool mayLeaveTraining(const QString& action);
    // Whether work outside the document would be lost (the Train tab's model not kept).
    void setUnkeptWork(std::function<bool()> unkept) { unkeptWork_ = std::move(unkept); }

signals:
    // For the status bar.
    void statusMessage(const QString& message);
    // openFile() finished: empty on success, else what was wrong.
    void sessionOpened(const QString& error);
    // A session, an example or a new document is about to replace the document (anything still
    // being read for the old one must not land on it).
    void replacingDocument();
    // mayLeaveTraining() said yes: the Train tab drops its run and its preview.
    void trainingDropped();

private:
    QString fail(const QString& title, const QString& message);

    Document* document_;
    QWidget* window_;
    FilePrompts prompts_;
    RecentFiles recent_;
    std::function<bool()> unkeptWork_;
};

}  // namespace qkv::ui
