#pragma once
// Help > Keyboard: every keyboard path of the window, read from the window itself so the list
// never goes stale: each action's shortcuts (the menu bar walked menu by menu, then actions the
// window holds outside its menus), the menus' and tabs' Alt+letter mnemonics, and the keys the
// heatmap canvases and the focus chain take (documented here, checked by a test that presses them).

#include <QDialog>
#include <QString>

#include <vector>

class QMainWindow;
class QTabWidget;
class QTableWidget;

namespace qkv::ui {

struct KeyboardEntry {
    QString where;   // "File", "View > Tabs", "Tabs", "Heatmaps", "Everywhere"
    QString what;    // the action's text without its mnemonic marker
    QString keys;    // in the platform's notation ("Ctrl+E; F5", as QKeySequence::listToString)
};

// The window's actions that have a shortcut, in menu order; then the menu titles' and
// `tabs`' mnemonics (null: none).
std::vector<KeyboardEntry> actionShortcuts(const QMainWindow& window, const QTabWidget* tabs);
// Keys that no action carries: focus moves, what a focused heatmap canvas does with a key
// (FigureCanvas' moveCellWithArrows, HeadsCanvas::keyPressEvent) and the sentences' token chips
// (TokenChips::keyPressEvent); tests press each and check it does what this says.
std::vector<KeyboardEntry> documentedKeys();
// The text of `text` as a menu shows it, without "&" markers ("&Export Figure…" -> "Export Figure…").
QString withoutMnemonic(QString text);

class KeyboardDialog : public QDialog {
    Q_OBJECT
public:
    KeyboardDialog(const QMainWindow& window, const QTabWidget* tabs, QWidget* parent = nullptr);

    QTableWidget* table() const { return table_; }

private:
    QTableWidget* table_;
};

}  // namespace qkv::ui
