#include "ui/render/app_palette.hpp"

#include <QApplication>
#include <QStyle>
#include <QStyleHints>
#include <QtGlobal>

#include <cstdio>

#include "ui/settings/preference.hpp"

namespace qkv::ui {
namespace {

const Preference<QString> kPaletteSetting{QStringLiteral("view/palette"), QStringLiteral("system")};
const Preference<bool> kHighContrastSetting{QStringLiteral("view/highContrast"), false};

bool parseScheme(const QString& text, PaletteScheme& scheme)
{
    const auto parsed = parseName(kPaletteSchemeNames, text.trimmed().toLower().toStdString());
    if (parsed) scheme = *parsed;
    return parsed.has_value();
}

// The disabled group's text, greyed (setColor(role, colour) sets every group first).
void setDisabledText(QPalette& palette, const QColor& color)
{
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText, QPalette::HighlightedText})
        palette.setColor(QPalette::Disabled, role, color);
}

// The desktop's palette, read before this file first changes the application's.
const QPalette& desktopPalette()
{
    static const QPalette desktop = QGuiApplication::palette();
    return desktop;
}

// What a palette cannot say to the Fusion style: it draws frames and check boxes in a shade of
// the window colour, which on a black or white window is all but invisible. With high contrast,
// text fields and spin boxes (their arrow buttons kept wide enough to show the arrows) and check
// and radio indicators (sized in em, to grow with the font) get a frame in the text colour, and
// a checked indicator is filled with the selection colour. Only frames and indicators: every
// other part stays the style's.
const QString kHighContrastSheet = QStringLiteral(
    "QLineEdit, QPlainTextEdit, QTextEdit, QAbstractSpinBox { border: 1px solid palette(text); }"
    "QAbstractSpinBox::up-button, QAbstractSpinBox::down-button { width: 16px; }"
    "QCheckBox::indicator, QGroupBox::indicator, QRadioButton::indicator {"
    " width: 0.8em; height: 0.8em; border: 2px solid palette(text); background: palette(base); }"
    "QRadioButton::indicator { border-radius: 0.5em; }"
    "QCheckBox::indicator:checked, QGroupBox::indicator:checked, QRadioButton::indicator:checked {"
    " background: palette(highlight); }"
    "QCheckBox::indicator:indeterminate { background: palette(mid); }");

}  // namespace

Appearance storedAppearance()
{
    Appearance appearance;
    parseScheme(kPaletteSetting.value(), appearance.scheme);
    appearance.highContrast = kHighContrastSetting.value();
    const QString forced = qEnvironmentVariable("QKV_STUDIO_PALETTE");
    if (!forced.isEmpty() && !parseScheme(forced, appearance.scheme))
        std::fprintf(stderr, "QKV_STUDIO_PALETTE=%s is not one of %s; using the setting\n", qPrintable(forced),
                     std::string(allowedNames(kPaletteSchemeNames)).c_str());
    return appearance;
}

void storeHighContrast(bool on) { kHighContrastSetting.setValue(on); }

void storePaletteScheme(PaletteScheme scheme)
{
    const std::string_view name = nameOf(kPaletteSchemeNames, scheme);
    kPaletteSetting.setValue(QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size())));
}

bool isDarkPalette(const QPalette& palette) { return palette.color(QPalette::Window).lightness() < 128; }

bool desktopPrefersDark(const QPalette& desktop)
{
    if (isDarkPalette(desktop)) return true;
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
    if (QGuiApplication::styleHints()->colorScheme() == Qt::ColorScheme::Dark) return true;
#endif
    // GTK's own override (GTK_THEME=Adwaita:dark), which Qt 6.4's themes do not read.
    return qEnvironmentVariable("GTK_THEME").endsWith(QStringLiteral(":dark"), Qt::CaseInsensitive);
}

QPalette darkPalette()
{
    QPalette p;
    const QColor text(0xe8, 0xe8, 0xe8);
    p.setColor(QPalette::Window, QColor(0x2d, 0x2d, 0x2d));
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    p.setColor(QPalette::AlternateBase, QColor(0x28, 0x28, 0x28));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x3a, 0x3a, 0x3a));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x8a, 0x80));
    p.setColor(QPalette::Light, QColor(0x55, 0x55, 0x55));
    p.setColor(QPalette::Midlight, QColor(0x48, 0x48, 0x48));
    p.setColor(QPalette::Mid, QColor(0x5c, 0x5c, 0x5c));
    p.setColor(QPalette::Dark, QColor(0x1a, 0x1a, 0x1a));
    p.setColor(QPalette::Shadow, QColor(0x0a, 0x0a, 0x0a));
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x7b, 0xd9));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x8a, 0xb8, 0xff));
    p.setColor(QPalette::LinkVisited, QColor(0xc6, 0xa4, 0xff));
    p.setColor(QPalette::ToolTipBase, QColor(0x2d, 0x2d, 0x2d));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0xa0, 0xa0, 0xa0));
    setDisabledText(p, QColor(0x80, 0x80, 0x80));
    return p;
}

QPalette highContrastPalette(bool dark)
{
    QPalette p;
    const QColor ground = dark ? Qt::black : Qt::white, ink = dark ? Qt::white : Qt::black;
    for (QPalette::ColorRole role : {QPalette::Window, QPalette::Base, QPalette::AlternateBase, QPalette::ToolTipBase})
        p.setColor(role, ground);
    for (QPalette::ColorRole role :
         {QPalette::WindowText, QPalette::Text, QPalette::ButtonText, QPalette::ToolTipText, QPalette::BrightText})
        p.setColor(role, ink);
    // Buttons a step off the ground so they read as buttons; frames and separators in ink.
    p.setColor(QPalette::Button, dark ? QColor(0x26, 0x26, 0x26) : QColor(0xe6, 0xe6, 0xe6));
    for (QPalette::ColorRole role : {QPalette::Light, QPalette::Midlight, QPalette::Mid, QPalette::Dark, QPalette::Shadow})
        p.setColor(role, ink);
    p.setColor(QPalette::Highlight, dark ? QColor(0xff, 0xff, 0x00) : QColor(0x00, 0x00, 0xa8));
    p.setColor(QPalette::HighlightedText, dark ? Qt::black : Qt::white);
    p.setColor(QPalette::Link, dark ? QColor(0x00, 0xff, 0xff) : QColor(0x00, 0x00, 0xd0));
    p.setColor(QPalette::LinkVisited, dark ? QColor(0xff, 0x80, 0xff) : QColor(0x80, 0x00, 0x80));
    p.setColor(QPalette::PlaceholderText, dark ? QColor(0xc8, 0xc8, 0xc8) : QColor(0x40, 0x40, 0x40));
    // Disabled text still at 4.5:1 or more (WCAG AA) against the ground.
    setDisabledText(p, dark ? QColor(0xa0, 0xa0, 0xa0) : QColor(0x5a, 0x5a, 0x5a));
    return p;
}

void applyAppearance(const Appearance& appearance)
{
    const QPalette& desktop = desktopPalette();
    const bool dark = appearance.scheme == PaletteScheme::Dark ||
                      (appearance.scheme == PaletteScheme::System && desktopPrefersDark(desktop));
    if (appearance.highContrast) QApplication::setPalette(highContrastPalette(dark));
    else if (appearance.scheme == PaletteScheme::System && dark == isDarkPalette(desktop))
        QApplication::setPalette(desktop);  // the desktop's own colours, light or dark
    else QApplication::setPalette(dark ? darkPalette() : QApplication::style()->standardPalette());
    // After the palette: the sheet's palette(text) is read when widgets are polished with it.
    if (auto* app = qobject_cast<QApplication*>(QCoreApplication::instance()))
        app->setStyleSheet(appearance.highContrast ? kHighContrastSheet : QString());
}

}  // namespace qkv::ui
