#include "ui/mainwindow/keyboard_shortcuts.hpp"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

namespace qkv::ui {
namespace {

QString keysOf(const QList<QKeySequence>& shortcuts)
{
    QList<QKeySequence> keys;
    for (const QKeySequence& s : shortcuts)
        if (!s.isEmpty()) keys << s;
    return QKeySequence::listToString(keys, QKeySequence::NativeText);
}

// "&Export Figure…" -> 'E'; none: an empty string.
QString mnemonicOf(const QString& text)
{
    for (qsizetype i = 0; i + 1 < text.size(); ++i) {
        if (text[i] != QLatin1Char('&')) continue;
        if (text[i + 1] == QLatin1Char('&')) {
            ++i;
            continue;
        }
        return QString(text[i + 1].toUpper());
    }
    return {};
}

void addMenu(const QMenu& menu, const QString& where, std::vector<KeyboardEntry>& out, std::set<const QAction*>& seen)
{
    for (const QAction* action : menu.actions()) {
        seen.insert(action);
        if (action->isSeparator()) continue;
        if (const QMenu* sub = action->menu()) {
            addMenu(*sub, where + QStringLiteral(" > ") + withoutMnemonic(sub->title()), out, seen);
            continue;
        }
        const QString keys = keysOf(action->shortcuts());
        if (!keys.isEmpty()) out.push_back({where, withoutMnemonic(action->text()), keys});
    }
}

}  // namespace

QString withoutMnemonic(QString text)
{
    text.replace(QStringLiteral("&&"), QStringLiteral("\x01"));
    text.remove(QLatin1Char('&'));
    text.replace(QStringLiteral("\x01"), QStringLiteral("&"));
    return text;
}

std::vector<KeyboardEntry> actionShortcuts(const QMainWindow& window, const QTabWidget* tabs)
{
    std::vector<KeyboardEntry> out;
    std::set<const QAction*> seen;
    const QMenuBar* bar = window.menuBar();
    for (const QAction* top : bar->actions())
        if (const QMenu* menu = top->menu()) addMenu(*menu, withoutMnemonic(menu->title()), out, seen);
    // Actions the window holds outside its menus (a shortcut with no menu entry): only those added
    // to some widget, as only those take their keys, and only window-wide ones.
    for (const QAction* action : window.findChildren<QAction*>()) {
        if (seen.count(action) || action->menu() || action->associatedObjects().isEmpty()) continue;
        if (action->shortcutContext() != Qt::WindowShortcut && action->shortcutContext() != Qt::ApplicationShortcut) continue;
        const QString keys = keysOf(action->shortcuts());
        if (!keys.isEmpty()) out.push_back({QObject::tr("Window"), withoutMnemonic(action->text()), keys});
    }
    for (const QAction* top : bar->actions()) {
        const QString letter = mnemonicOf(top->text());
        if (!letter.isEmpty())
            out.push_back({QObject::tr("Menus"), QObject::tr("Open the %1 menu").arg(withoutMnemonic(top->text())),
                           QKeySequence(QStringLiteral("Alt+") + letter).toString(QKeySequence::NativeText)});
    }
    if (tabs)
        for (int i = 0; i < tabs->count(); ++i) {
            const QString letter = mnemonicOf(tabs->tabText(i));
            if (!letter.isEmpty())
                out.push_back({QObject::tr("Tabs"), QObject::tr("Show the %1 tab").arg(withoutMnemonic(tabs->tabText(i))),
                               QKeySequence(QStringLiteral("Alt+") + letter).toString(QKeySequence::NativeText)});
        }
    return out;
}

std::vector<KeyboardEntry> documentedKeys()
{
    const QString everywhere = QObject::tr("Everywhere"), maps = QObject::tr("Heatmaps (focused)"),
                  charts = QObject::tr("Charts (focused)"), chips = QObject::tr("A sentence's tokens (focused)");
    const auto key = [](const char* k) { return QKeySequence(QString::fromLatin1(k)).toString(QKeySequence::NativeText); };
    return {
        {everywhere, QObject::tr("Next control (reading order)"), key("Tab")},
        {everywhere, QObject::tr("Previous control"), key("Shift+Tab")},
        {everywhere, QObject::tr("Open the focused control's context menu"), key("Menu") + QStringLiteral("; ") + key("Shift+F10")},
        {everywhere, QObject::tr("The menu bar"), key("F10")},
        {maps, QObject::tr("Select the query above or below"), key("Up") + QStringLiteral("; ") + key("Down")},
        {maps, QObject::tr("Select the key to the left or right"), key("Left") + QStringLiteral("; ") + key("Right")},
        {maps, QObject::tr("Select the first or last key"), key("Home") + QStringLiteral("; ") + key("End")},
        {charts, QObject::tr("Show the chart's numbers as a table"), key("Ctrl+T")},
        {chips, QObject::tr("Choose the previous or next token as the query (or key)"), key("Left") + QStringLiteral("; ") + key("Right")},
        {chips, QObject::tr("Extend the chosen queries"), key("Shift+Left") + QStringLiteral("; ") + key("Shift+Right")},
        {chips, QObject::tr("Choose the first or last token"), key("Home") + QStringLiteral("; ") + key("End")},
    };
}

KeyboardDialog::KeyboardDialog(const QMainWindow& window, const QTabWidget* tabs, QWidget* parent)
    : QDialog(parent), table_(new QTableWidget(this))
{
    setWindowTitle(tr("Keyboard"));
    auto* intro = new QLabel(tr("Every action of QKV Studio from the keyboard. Menus and buttons also open with "
                                "Alt and their underlined letter; Tab moves through the controls in reading order."),
                             this);
    intro->setWordWrap(true);
    std::vector<KeyboardEntry> entries = actionShortcuts(window, tabs);
    const std::vector<KeyboardEntry> documented = documentedKeys();
    entries.insert(entries.end(), documented.begin(), documented.end());

    table_->setColumnCount(3);
    table_->setHorizontalHeaderLabels({tr("Keys"), tr("Action"), tr("Where")});
    table_->setRowCount(static_cast<int>(entries.size()));
    for (int r = 0; r < static_cast<int>(entries.size()); ++r) {
        const KeyboardEntry& e = entries[static_cast<std::size_t>(r)];
        int column = 0;
        for (const QString& text : {e.keys, e.what, e.where}) {
            auto* item = new QTableWidgetItem(text);
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
            table_->setItem(r, column++, item);
        }
    }
    table_->setAccessibleName(tr("Keyboard shortcuts"));
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setAlternatingRowColors(true);
    table_->setTabKeyNavigation(false);  // Tab goes on to Close; arrow keys move between cells
    table_->setWordWrap(false);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->resizeColumnsToContents();

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(table_, 1);
    layout->addWidget(buttons);
    int width = 40;
    for (int c = 0; c < table_->columnCount(); ++c) width += table_->columnWidth(c);
    resize(std::clamp(width, 560, 1000), 640);
    table_->setFocus();
}

}  // namespace qkv::ui
