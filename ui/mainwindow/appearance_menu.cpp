#include "ui/mainwindow/appearance_menu.hpp"

#include <QActionGroup>
#include <QMenu>

#include "ui/render/app_palette.hpp"

namespace qkv::ui {

void addAppearanceActions(QMenu* view)
{
    view->addSeparator();
    const Appearance stored = storedAppearance();

    QAction* highContrast = view->addAction(QMenu::tr("High &Contrast"));
    highContrast->setObjectName(QStringLiteral("highContrastAction"));
    highContrast->setCheckable(true);
    highContrast->setChecked(stored.highContrast);
    highContrast->setStatusTip(QMenu::tr("Black on white (or white on black with dark colours), the strongest borders "
                                         "and selection"));
    QObject::connect(highContrast, &QAction::toggled, view, [](bool on) {
        storeHighContrast(on);
        Appearance appearance = storedAppearance();
        appearance.highContrast = on;
        applyAppearance(appearance);
    });

    QMenu* colours = view->addMenu(QMenu::tr("Co&lours"));
    auto* group = new QActionGroup(colours);
    const struct {
        PaletteScheme scheme;
        QString text;
    } choices[] = {{PaletteScheme::System, QMenu::tr("Follow the &Desktop")},
                   {PaletteScheme::Light, QMenu::tr("&Light")},
                   {PaletteScheme::Dark, QMenu::tr("&Dark")}};
    for (const auto& choice : choices) {
        QAction* action = colours->addAction(choice.text);
        action->setCheckable(true);
        action->setChecked(choice.scheme == stored.scheme);
        group->addAction(action);
        QObject::connect(action, &QAction::triggered, view, [scheme = choice.scheme] {
            storePaletteScheme(scheme);
            Appearance appearance = storedAppearance();
            appearance.scheme = scheme;
            applyAppearance(appearance);
        });
    }
}

}  // namespace qkv::ui
