#include "ui/startup/window_extensions.hpp"

#include "ui/guide/student_guide.hpp"
#include "ui/mainwindow/help_menu_extension.hpp"

namespace qkv::ui {

void installWindowExtensions()
{
    setHelpMenuExtension([](MainWindow* window, QMenu* help) -> QObject* { return StudentGuide::install(window, help); });
}

}  // namespace qkv::ui
