#include "ui/mainwindow/recent_files.hpp"

#include <QFileInfo>
#include <QStandardPaths>

#include "ui/settings/folders.hpp"
#include "ui/settings/preference.hpp"

namespace qkv::ui {
namespace {
const Preference<QStringList> kRecentFiles{QStringLiteral("recentFiles"), {}};
}  // namespace

QStringList RecentFiles::files() const { return kRecentFiles.value(); }

void RecentFiles::add(const QString& path) const
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList files = kRecentFiles.value();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > maxCount) files.removeLast();
    kRecentFiles.setValue(files);
}

void RecentFiles::remove(const QString& path) const
{
    QStringList files = kRecentFiles.value();
    files.removeAll(QFileInfo(path).absoluteFilePath());
    kRecentFiles.setValue(files);
}

void RecentFiles::clear() const { kRecentFiles.setValue({}); }

QString RecentFiles::lastDirectory() const
{
    const QStringList files = kRecentFiles.value();
    return firstExistingFolder({files.isEmpty() ? QString() : QFileInfo(files.front()).absolutePath(),
                                QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)});
}

}  // namespace qkv::ui
