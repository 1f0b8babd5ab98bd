#pragma once
// File > Open Recent: the last session files opened or saved, newest first, kept in QSettings
// (with the window geometry, the only thing QSettings keeps).

#include <QString>
#include <QStringList>

namespace qkv::ui {

class RecentFiles {
public:
    static constexpr int maxCount = 10;

    QStringList files() const;
    // Moves `path` (made absolute) to the front.
    void add(const QString& path) const;
    void remove(const QString& path) const;
    void clear() const;
    // The folder of the newest file, else the user's documents folder: where dialogs start.
    QString lastDirectory() const;
};

}  // namespace qkv::ui
