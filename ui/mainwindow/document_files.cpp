#include "ui/mainwindow/document_files.hpp"

#include <QDir>
#include <QFileInfo>

#include <optional>

#include "core/checkpoint/model_input_loading.hpp"
#include "core/pipeline/layer_input.hpp"
#include "core/config/examples.hpp"
#include "core/session/session.hpp"
#include "ui/document/document.hpp"
#include "ui/document/examples.hpp"
#include "ui/document/off_thread.hpp"
#include "ui/document/session_text.hpp"

namespace qkv::ui {
namespace {

// What a background read hands back to the GUI thread.
struct ReadOutcome {
    std::optional<qkv::Session> session;
    QString error;
    QString notice;  // the model's own input could not be read again
};

// A FIFO or a device would block a read forever and be replaced by an atomic write: only
// regular files (or, for a save, a path that does not exist yet) are used.
QString notARegularFile(const QString& path, bool mayBeMissing)
{
    const QFileInfo info(path);
    if (!info.exists()) return mayBeMissing ? QString() : DocumentFiles::tr("%1: no such file").arg(path);
    if (info.isDir()) return DocumentFiles::tr("%1: is a folder, not a file").arg(path);
    if (!info.isFile()) return DocumentFiles::tr("%1: is not a regular file (a FIFO, socket or device)").arg(path);
    return {};
}

}  // namespace

DocumentFiles::DocumentFiles(Document* document, QWidget* window)
    : QObject(window), document_(document), window_(window), prompts_(FilePrompts::dialogs(window))
{
}

QString DocumentFiles::fail(const QString& title, const QString& message)
{
    if (prompts_.showError) prompts_.showError(title, message);
    emit statusMessage(message);
    return message;
}

bool DocumentFiles::maybeSave()
{
    if (!document_->isModified()) return true;
    const QMessageBox::StandardButton answer =
        prompts_.askToSave ? prompts_.askToSave(document_->displayName()) : QMessageBox::Cancel;
    if (answer == QMessageBox::Discard) return true;
    if (answer == QMessageBox::Save) return save();
    return false;
}

bool DocumentFiles::mayReplace(const QString& action)
{
    if (unkeptWork_ && unkeptWork_()) {
        const bool stop = prompts_.askToStopTraining ? prompts_.askToStopTraining(action) : false;
        if (!stop) return false;
    }
    return maybeSave();
}

bool DocumentFiles::beginReplacing(const QString& action)
{
    if (!mayReplace(action)) return false;
    emit replacingDocument();
    return true;
}

bool DocumentFiles::mayLeaveTraining(const QString& action)
{
    if (!unkeptWork_ || !unkeptWork_()) return true;
    if (!prompts_.askToStopTraining || !prompts_.askToStopTraining(action)) return false;
    emit trainingDropped();
    return true;
}

void DocumentFiles::newDocument()
{
    if (!mayReplace(tr("start a new session"))) return;
    emit replacingDocument();
    document_->reset(qkv::builtInExample());
    emit statusMessage(tr("New session: the paper's random initialisation"));
}

void DocumentFiles::open()
{
    const QString path = prompts_.chooseOpenPath ? prompts_.chooseOpenPath(recent_.lastDirectory()) : QString();
    if (!path.isEmpty()) openFile(path);
}

QString DocumentFiles::openFile(const QString& path)
{
    const QString title = tr("Cannot Open Session");
    QString error = notARegularFile(path, false);
    if (!error.isEmpty()) {
        if (!QFileInfo::exists(path)) recent_.remove(path);
        fail(title, error);
        emit sessionOpened(error);
        return error;
    }
    ReadOutcome read = runOffGuiThread([file = path.toStdString()] {
        ReadOutcome outcome;
        auto session = qkv::readSession(file);
        if (!session) {
            outcome.error = QString::fromStdString(session.error());
            return outcome;
        }
        // The model's own input is read again from the checkpoint the session names.
        outcome.notice = QString::fromStdString(qkv::attachModelInputOrUseWords(*session));
        outcome.session = std::move(*session);
        return outcome;
    });
    if (!read.session) {
        fail(title, read.error);
        emit sessionOpened(read.error);
        return read.error;
    }
    if (!beginReplacing(tr("open %1").arg(QFileInfo(path).fileName()))) {
        emit sessionOpened({});
        return {};
    }
    const QString absolute = QFileInfo(path).absoluteFilePath();
    document_->open(*read.session, absolute, QString(), tr("Open %1").arg(QFileInfo(path).fileName()));
    recent_.add(absolute);
    emit statusMessage(tr("Opened %1").arg(QDir::toNativeSeparators(absolute)) +
                       (read.notice.isEmpty() ? QString() : QStringLiteral(". ") + read.notice));
    emit sessionOpened({});
    return {};
}

QString DocumentFiles::saveTo(const QString& path)
{
    const QString title = tr("Cannot Save Session");
    if (const QString error = notARegularFile(path, true); !error.isEmpty()) return fail(title, error);
    // A session file holds valid settings only (its reader refuses others, as it refuses any
    // file's bad values): saving now would write a file that cannot be opened again.
    if (!document_->isDocumentValid())
        return fail(title, document_->isPreviewing()
                               ? tr("The settings are not valid. Correct them, or undo, then save.")
                               : tr("The settings are not valid: %1 Correct them, or undo, then save.")
                                     .arg(QString::fromStdString(document_->issues().front().message)));
    // Under a preview (the Train tab's model while it learns) the document as it was is saved.
    const qkv::Session session = document_->documentSession();
    const QString error = runOffGuiThread([file = path.toStdString(), session] {
        const qkv::Status status = qkv::writeSession(file, session);
        return status ? QString() : QString::fromStdString(status.error());
    });
    if (!error.isEmpty()) return fail(title, error);
    const QString absolute = QFileInfo(path).absoluteFilePath();
    // User input was held back while writing: the document is still what was written.
    document_->markSaved(absolute);
    recent_.add(absolute);
    emit statusMessage(tr("Saved to %1").arg(QDir::toNativeSeparators(absolute)));
    return {};
}

bool DocumentFiles::save()
{
    if (document_->filePath().isEmpty()) return saveAs();
    return saveTo(document_->filePath()).isEmpty();
}

bool DocumentFiles::saveAs()
{
    const QString directory = document_->filePath().isEmpty() ? recent_.lastDirectory()
                                                              : QFileInfo(document_->filePath()).absolutePath();
    QString name = document_->displayName();
    if (!name.endsWith(QLatin1String(".json"))) name += QStringLiteral(".qkv.json");
    const QString path = prompts_.chooseSavePath ? prompts_.chooseSavePath(QDir(directory).filePath(name)) : QString();
    if (path.isEmpty()) return false;
    return saveTo(path).isEmpty();
}

void DocumentFiles::openExample(const Example& example)
{
    auto session = readExample(example);
    if (!session) {
        fail(tr("Cannot Open Example"), QString::fromStdString(session.error()));
        return;
    }
    if (!beginReplacing(tr("open the example “%1”").arg(example.title))) return;
    document_->open(*session, QString(), example.fileName, tr("Open Example %1").arg(example.title));
    emit statusMessage(tr("Example: %1. %2").arg(example.title, example.description));
}

void DocumentFiles::applyScenario(const Example& example)
{
    auto session = readExample(example);
    if (!session) {
        fail(tr("Cannot Apply Scenario"), QString::fromStdString(session.error()));
        return;
    }
    const QString changes = scenarioChanges(document_->session(), *session);
    document_->applyScenario(*session, example.title);
    QString description = example.description;
    if (!description.endsWith(QLatin1Char('.'))) description += QLatin1Char('.');  // a sentence before the changes
    emit statusMessage(tr("Scenario: %1. %2 %3 Undo goes back.").arg(example.title, description, changes));
}

}  // namespace qkv::ui
