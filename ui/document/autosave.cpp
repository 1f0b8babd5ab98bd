#include "ui/document/autosave.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>

#include "core/checkpoint/model_input_loading.hpp"
#include "core/pipeline/layer_input.hpp"
#include "ui/document/document.hpp"
#include "ui/document/off_thread.hpp"

namespace qkv::ui {
namespace {

QString notePath(const QString& directory) { return QDir(directory).filePath(QStringLiteral("autosave-document.json")); }
QString brokenPath(const QString& directory) { return QDir(directory).filePath(QStringLiteral("autosave.broken.qkv.json")); }

Autosave::DocumentNote readNote(const QString& directory)
{
    Autosave::DocumentNote note;
    QFile file(notePath(directory));
    if (!file.open(QIODevice::ReadOnly) || file.size() > (1 << 20)) return note;  // untitled, unmodified
    const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
    note.filePath = json.value(QStringLiteral("file")).toString();
    note.displayName = json.value(QStringLiteral("name")).toString();
    note.modified = json.value(QStringLiteral("modified")).toBool();
    note.reopenFile = json.value(QStringLiteral("reopen_file")).toBool() && !note.filePath.isEmpty();
    return note;
}

}  // namespace

Autosave::Autosave(Document* document, QString directory, QObject* parent)
    : QObject(parent), document_(document), directory_(std::move(directory)),
      task_([this](const QString& error) {
          current_ = error.isEmpty() && !pending_;
          emit written(error);
      })
{
    timer_.setSingleShot(true);
    timer_.setInterval(1500);
    connect(&timer_, &QTimer::timeout, this, &Autosave::writeInBackground);
    connect(document_, &Document::changed, this, &Autosave::schedule);
    connect(document_, &Document::modifiedChanged, this, &Autosave::schedule);
    connect(document_, &Document::fileChanged, this, &Autosave::schedule);
}

Autosave::~Autosave() = default;

QString Autosave::defaultDirectory() { return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation); }

QString Autosave::sessionPath(const QString& directory) { return QDir(directory).filePath(QStringLiteral("autosave.qkv.json")); }

Autosave::Restored Autosave::read(const QString& directory)
{
    Restored restored;
    const QString path = sessionPath(directory);
    if (!QFileInfo::exists(path)) return restored;  // the first start
    auto session = qkv::readSession(path.toStdString());
    if (!session) {
        // Kept for the curious, out of the way of the next start.
        QFile::remove(brokenPath(directory));
        const bool moved = QFile::rename(path, brokenPath(directory)) || QFile::remove(path);
        restored.error = QCoreApplication::translate("Autosave", "The last session could not be restored: %1%2")
                             .arg(QString::fromStdString(session.error()))
                             .arg(moved && QFileInfo::exists(brokenPath(directory))
                                      ? QCoreApplication::translate("Autosave", " (kept as %1)").arg(brokenPath(directory))
                                      : QString());
        return restored;
    }
    restored.session = std::move(*session);
    restored.note = readNote(directory);
    if (restored.note.reopenFile) {
        // The file as it is now; the stored session (its state when closed) if it cannot be read.
        if (QFileInfo(restored.note.filePath).isFile()) {
            if (auto file = qkv::readSession(restored.note.filePath.toStdString())) restored.session = std::move(*file);
        }
        restored.note.modified = false;
    }
    // The model's own input is read again from the checkpoint the session names.
    if (const std::string notice = qkv::attachModelInputOrUseWords(*restored.session); !notice.empty())
        restored.error = QString::fromStdString(notice);
    return restored;
}

QString Autosave::write(const QString& directory, const qkv::Session& session, const DocumentNote& note)
{
    if (!QDir().mkpath(directory))
        return QCoreApplication::translate("Autosave", "cannot create %1").arg(directory);
    if (const qkv::Status status = qkv::writeSession(sessionPath(directory).toStdString(), session); !status)
        return QString::fromStdString(status.error());
    QSaveFile file(notePath(directory));
    const QJsonObject json{{QStringLiteral("file"), note.filePath},
                           {QStringLiteral("name"), note.displayName},
                           {QStringLiteral("modified"), note.modified},
                           {QStringLiteral("reopen_file"), note.reopenFile}};
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(json).toJson()) < 0 || !file.commit())
        return QCoreApplication::translate("Autosave", "cannot write %1: %2").arg(notePath(directory), file.errorString());
    return {};
}

Autosave::DocumentNote Autosave::noteNow() const
{
    return {document_->filePath(), document_->filePath().isEmpty() ? document_->displayName() : QString(),
            document_->isModified(), false};
}

void Autosave::schedule()
{
    pending_ = true;
    current_ = false;
    timer_.start();
}

void Autosave::writeInBackground()
{
    // A session file holds valid settings only (the next start could not read others): while
    // they are invalid the autosave keeps the last valid state, and the edit that makes them
    // valid again schedules the next write.
    if (!document_->isDocumentValid()) return;
    pending_ = false;
    task_.request([directory = directory_, session = document_->documentSession(), note = noteNow()] {
        return write(directory, session, note);
    });
}

void Autosave::waitForRunningWrite()
{
    timer_.stop();
    task_.cancel();
    // Sleeps until the write's end is posted; processEvents(flags, ms) would drop
    // WaitForMoreEvents and spin meanwhile.
    while (task_.isBusy()) QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents | QEventLoop::WaitForMoreEvents);
}

QString Autosave::writeNow()
{
    // A session with loaded weights can be hundreds of MB: not written again unchanged.
    if (current_ && !pending_ && !task_.isBusy()) return {};
    if (!document_->isDocumentValid()) return {};  // the last valid state stays (writeInBackground)
    const QString error = writeAndWait(document_->documentSession(), noteNow());
    current_ = error.isEmpty();
    return error;
}

QString Autosave::writeNow(const qkv::Session& session, const DocumentNote& note)
{
    const QString error = writeAndWait(session, note);
    current_ = false;  // not the document as it is
    return error;
}

QString Autosave::writeAndWait(const qkv::Session& session, const DocumentNote& note)
{
    waitForRunningWrite();
    pending_ = false;
    const QString error = runOffGuiThread([directory = directory_, session, note] { return write(directory, session, note); });
    emit written(error);
    return error;
}

}  // namespace qkv::ui
