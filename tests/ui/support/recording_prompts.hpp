#pragma once
// FilePrompts for tests: answers set in advance, every question and error recorded.

#include <QMessageBox>
#include <QString>
#include <QStringList>

#include <memory>

#include "ui/mainwindow/file_prompts.hpp"

namespace qkv::ui::testing {

struct PromptLog {
    QMessageBox::StandardButton answer = QMessageBox::Cancel;  // to "save the changes?"
    QString savePath;                                            // to "save where?"
    QStringList askedToSave;                                     // the documents asked about
    QStringList errors;                                          // "title: message"
};

inline FilePrompts recordingPrompts(const std::shared_ptr<PromptLog>& log)
{
    FilePrompts prompts;
    prompts.askToSave = [log](const QString& name) {
        log->askedToSave << name;
        return log->answer;
    };
    prompts.chooseSavePath = [log](const QString&) { return log->savePath; };
    prompts.chooseOpenPath = [](const QString&) { return QString(); };
    prompts.showError = [log](const QString& title, const QString& message) { log->errors << title + ": " + message; };
    return prompts;
}

}  // namespace qkv::ui::testing
