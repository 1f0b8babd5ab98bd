#include "ui/settings/folders.hpp"

#include <QFileInfo>
#include <QStandardPaths>

namespace qkv::ui {

QString firstExistingFolder(std::initializer_list<QString> candidates)
{
    for (const QString& folder : candidates)
        if (!folder.isEmpty() && QFileInfo(folder).isDir()) return folder;
    return QStandardPaths::writableLocation(QStandardPaths::HomeLocation);
}

}  // namespace qkv::ui
