#pragma once
// The app's last state, kept in the session format: a
// session file under QStandardPaths::AppDataLocation, written shortly after every change (so a
// crash loses little) and on close, with the loaded and edited weights it holds, plus a small
// note of which file the document belongs to and whether it had unsaved changes. The next
// start restores both. A broken autosave never stops the app: it is moved aside and reported.

#include <QObject>
#include <QString>
#include <QTimer>

#include <optional>

#include "core/session/session.hpp"
#include "ui/background/latest_task.hpp"

namespace qkv::ui {

class Document;

class Autosave : public QObject {
    Q_OBJECT
public:
    // What the autosave holds about the document beside its session.
    struct DocumentNote {
        QString filePath;     // the document's file, empty when untitled
        QString displayName;  // its name when untitled (an example's file name)
        bool modified = false;
        // Changes were discarded on close: the next start opens filePath itself (the session
        // stored beside is only the fallback when the file cannot be read).
        bool reopenFile = false;
    };
    // What a start finds.
    struct Restored {
        std::optional<qkv::Session> session;  // none: first start, or the file was broken
        DocumentNote note;
        // Without a session: the autosave was there but broken, why and where it was moved. With
        // one: what was restored differently (the model's own input could not be read again).
        QString error;
    };

    // Writes into `directory` (created when missing).
    Autosave(Document* document, QString directory, QObject* parent = nullptr);
    ~Autosave() override;

    // QStandardPaths::AppDataLocation.
    static QString defaultDirectory();
    static QString sessionPath(const QString& directory);  // directory/autosave.qkv.json
    // Reads what the last run left in `directory` (call off the GUI thread: it may be large).
    static Restored read(const QString& directory);

    const QString& directory() const { return directory_; }
    // Debounce between a change and its write (default 1500 ms).
    void setDelay(int milliseconds) { timer_.setInterval(milliseconds); }
    // The document as it is now needs no write (just restored from this autosave).
    void markCurrent()
    {
        pending_ = false;
        current_ = true;
    }
    bool isPending() const { return pending_; }
    // A background write is running (or waiting).
    bool isWriting() const { return task_.isBusy(); }

    // For closing: writes the document now, waiting for the write (off the GUI thread), unless
    // the autosave already holds it or its settings are invalid (a session file holds valid
    // settings only: the last valid state stays). Returns the error, or empty. Drops any
    // debounced write.
    QString writeNow();
    // The same with `session` and `note` instead of the document (Discard writes the session as
    // last saved).
    QString writeNow(const qkv::Session& session, const DocumentNote& note);

signals:
    // A write finished: empty on success.
    void written(const QString& error);

private:
    void schedule();
    void writeInBackground();
    void waitForRunningWrite();
    QString writeAndWait(const qkv::Session& session, const DocumentNote& note);
    static QString write(const QString& directory, const qkv::Session& session, const DocumentNote& note);
    DocumentNote noteNow() const;

    Document* document_;
    QString directory_;
    QTimer timer_;
    bool pending_ = false;
    bool current_ = false;  // the file holds the document as it is (written or restored)
    LatestTask<QString> task_;
};

}  // namespace qkv::ui
