#pragma once
// What the start-up adds to every main window from the folders above ui/mainwindow: the student
// guide in the Help menu (ui/mainwindow/help_menu_extension.hpp). Called once, before the first
// window, by runGui and by the widget tests' main, so a tested window is the app's window.

namespace qkv::ui {

void installWindowExtensions();

}  // namespace qkv::ui
