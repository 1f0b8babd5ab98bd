// View > High Contrast and View > Colours: the application palette changes at once, the choice
// is stored and read back, QKV_STUDIO_PALETTE forces a scheme for one run, and a figure painted
// from a widget under the dark palette draws light text on a dark ground while an export keeps
// its light defaults.

#include <gtest/gtest.h>

#include <QApplication>
#include <QImage>
#include <QMenu>
#include <QSettings>
#include <QWidget>

#include "tests/ui/support/layer_test_support.hpp"
#include "ui/figure_registry/figure_registry.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figures/figure_export.hpp"
#include "ui/figures/figure_render.hpp"
#include "ui/mainwindow/appearance_menu.hpp"
#include "ui/render/app_palette.hpp"
#include "ui/render/contrast.hpp"

using namespace qkv::ui;

namespace {

// Every test starts from the desktop's (the offscreen platform's light) palette and no setting.
class AppearanceTest : public ::testing::Test {
protected:
    void SetUp() override { reset(); }
    void TearDown() override { reset(); }
    static void reset()
    {
        qunsetenv("QKV_STUDIO_PALETTE");
        qunsetenv("GTK_THEME");
        QSettings().remove(QStringLiteral("view/highContrast"));
        QSettings().remove(QStringLiteral("view/palette"));
        applyAppearance(Appearance{});
    }
    static QAction* actionNamed(QMenu& menu, const QString& text)
    {
        for (QAction* action : menu.findChildren<QAction*>())
            if (action->text().remove(QLatin1Char('&')) == text) return action;
        return nullptr;
    }
};

// Text-coloured pixels: within a few steps of `text` in every channel.
int pixelsNear(const QImage& image, const QColor& text)
{
    int count = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (std::abs(c.red() - text.red()) < 12 && std::abs(c.green() - text.green()) < 12 &&
                std::abs(c.blue() - text.blue()) < 12)
                ++count;
        }
    return count;
}

}  // namespace

TEST_F(AppearanceTest, HighContrastTogglesThePaletteAndPersists)
{
    ASSERT_FALSE(isDarkPalette(QApplication::palette())) << "the offscreen desktop is light";
    const QColor desktopWindow = QApplication::palette().color(QPalette::Window);
    QMenu menu;
    addAppearanceActions(&menu);
    QAction* highContrast = menu.findChild<QAction*>(QStringLiteral("highContrastAction"));
    ASSERT_NE(highContrast, nullptr);
    EXPECT_TRUE(highContrast->isCheckable());
    EXPECT_FALSE(highContrast->isChecked());

    highContrast->trigger();
    const QPalette on = QApplication::palette();
    EXPECT_EQ(on.color(QPalette::Window), QColor(Qt::white));
    EXPECT_GE(contrastRatio(on.color(QPalette::Text), on.color(QPalette::Base)), 20.0);
    EXPECT_GE(contrastRatio(on.color(QPalette::HighlightedText), on.color(QPalette::Highlight)), 7.0);
    EXPECT_GE(contrastRatio(on.color(QPalette::Disabled, QPalette::Text), on.color(QPalette::Base)), 4.5);
    QWidget widget;  // a widget made now takes it
    EXPECT_EQ(widget.palette().color(QPalette::Text), QColor(Qt::black));
    EXPECT_TRUE(qApp->styleSheet().contains(QStringLiteral("palette(text)"))) << "fields framed in the text colour";
    EXPECT_TRUE(QSettings().value(QStringLiteral("view/highContrast")).toBool());

    QMenu again;  // the next start (a new menu) reads it back
    addAppearanceActions(&again);
    EXPECT_TRUE(again.findChild<QAction*>(QStringLiteral("highContrastAction"))->isChecked());

    highContrast->trigger();
    EXPECT_EQ(QApplication::palette().color(QPalette::Window), desktopWindow);
    EXPECT_TRUE(qApp->styleSheet().isEmpty());
    EXPECT_FALSE(storedAppearance().highContrast);
}

TEST_F(AppearanceTest, DarkColoursAreChosenStoredAndFollowedByHighContrast)
{
    QMenu menu;
    addAppearanceActions(&menu);
    QAction* dark = actionNamed(menu, QStringLiteral("Dark"));
    QAction* desktop = actionNamed(menu, QStringLiteral("Follow the Desktop"));
    ASSERT_NE(dark, nullptr);
    ASSERT_NE(desktop, nullptr);
    EXPECT_TRUE(desktop->isChecked());

    dark->trigger();
    EXPECT_TRUE(isDarkPalette(QApplication::palette()));
    EXPECT_GE(contrastRatio(QApplication::palette().color(QPalette::Text), QApplication::palette().color(QPalette::Base)),
              7.0);
    EXPECT_EQ(QSettings().value(QStringLiteral("view/palette")).toString(), QStringLiteral("dark"));
    EXPECT_EQ(storedAppearance().scheme, PaletteScheme::Dark);

    // High contrast on dark colours: white on black.
    menu.findChild<QAction*>(QStringLiteral("highContrastAction"))->trigger();
    EXPECT_EQ(QApplication::palette().color(QPalette::Base), QColor(Qt::black));
    EXPECT_EQ(QApplication::palette().color(QPalette::Text), QColor(Qt::white));

    menu.findChild<QAction*>(QStringLiteral("highContrastAction"))->trigger();
    desktop->trigger();
    EXPECT_FALSE(isDarkPalette(QApplication::palette()));
    EXPECT_EQ(storedAppearance().scheme, PaletteScheme::System);
}

TEST_F(AppearanceTest, TheEnvironmentForcesASchemeForOneRun)
{
    qputenv("QKV_STUDIO_PALETTE", "dark");
    EXPECT_EQ(storedAppearance().scheme, PaletteScheme::Dark);
    qputenv("QKV_STUDIO_PALETTE", "light");
    EXPECT_EQ(storedAppearance().scheme, PaletteScheme::Light);
    storePaletteScheme(PaletteScheme::Dark);
    qputenv("QKV_STUDIO_PALETTE", "sepia");  // unknown: the setting stands
    EXPECT_EQ(storedAppearance().scheme, PaletteScheme::Dark);
}

// "Follow the desktop" on Qt 6.4 with a light platform palette: GTK's own dark request is kept.
TEST_F(AppearanceTest, FollowingTheDesktopTakesGtksDarkRequest)
{
    const QPalette light = QApplication::palette();
    ASSERT_FALSE(isDarkPalette(light));
    EXPECT_TRUE(isDarkPalette(darkPalette()));
    EXPECT_TRUE(desktopPrefersDark(darkPalette()));
    qputenv("GTK_THEME", "Adwaita:dark");
    EXPECT_TRUE(desktopPrefersDark(light));
    applyAppearance(Appearance{});
    EXPECT_TRUE(isDarkPalette(QApplication::palette()));
    qputenv("GTK_THEME", "Adwaita");
    EXPECT_FALSE(desktopPrefersDark(light));
    applyAppearance(Appearance{});
    EXPECT_FALSE(isDarkPalette(QApplication::palette()));
}

TEST_F(AppearanceTest, AFigureUnderTheDarkPaletteHasLightTextAndExportsStayLight)
{
    applyAppearance(Appearance{PaletteScheme::Dark, false});
    QWidget widget;
    const FigureOptions screen = widgetFigureOptions(widget);
    EXPECT_LT(screen.background.lightness(), 64);
    EXPECT_GT(screen.text.lightness(), 200);

    const auto result = qkv::ui::testing::computeResult(qkv::ui::testing::crossConfig());
    ASSERT_NE(result, nullptr);
    const Figure* heads = findFigure(QStringLiteral("heads"));
    ASSERT_NE(heads, nullptr);
    FigureInput input;
    input.result = result;
    input.options = screen;
    const QImage shown = figureImage(*heads, input, ExportSize{QSizeF(800, 600), 1.0});
    EXPECT_EQ(shown.pixelColor(1, 1), screen.background) << "the ground is the palette's Base";
    EXPECT_GT(pixelsNear(shown, screen.text), 100) << "titles, tokens and ticks in the palette's light text";
    EXPECT_EQ(pixelsNear(shown, QColor(Qt::black)), 0) << "no black text on the dark ground";

    input.options = FigureOptions{};  // what File > Export paints with, whatever the screen shows
    const QImage exported = figureImage(*heads, input, ExportSize{QSizeF(800, 600), 1.0});
    EXPECT_EQ(exported.pixelColor(1, 1), QColor(Qt::white));
    EXPECT_GT(pixelsNear(exported, QColor(Qt::black)), 100);
}
