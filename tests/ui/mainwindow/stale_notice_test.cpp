// While the settings are invalid the views keep the last valid result; the strip above them
// says so and names the control whose message explains what to fix.

#include "tests/ui/support/window_fixture.hpp"
#include "ui/mainwindow/stale_notice.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/views/result_view.hpp"

namespace qkv::ui::testing {
namespace {

TEST_F(WindowTest, InvalidSettingsSayAboveTheViewsThatTheyAreNotUpdated)
{
    StaleNotice* notice = window->staleNotice();
    ASSERT_NE(notice, nullptr);
    EXPECT_FALSE(notice->isVisible());
    const auto shown = window->document()->result();
    ASSERT_NE(shown, nullptr);

    qkv::Config config = smallConfig();
    config.headCount = 5;  // does not divide d_model = 64
    window->document()->edit(config, QStringLiteral("h = 5"));
    settle();
    ASSERT_FALSE(window->document()->isValid());
    EXPECT_TRUE(notice->isVisible());
    EXPECT_TRUE(notice->text().contains(QStringLiteral("Not updated"))) << notice->text().toStdString();
    EXPECT_TRUE(notice->text().contains(StaleNotice::controlName(qkv::ConfigField::Heads)))
        << notice->text().toStdString();
    // Nothing the user had is lost: every view still holds the last valid result.
    for (ResultView* view : window->tabs()->views()) EXPECT_EQ(view->result(), shown);
    // The notice sits above the views, not over them.
    EXPECT_LE(notice->mapTo(window.get(), QPoint(0, notice->height())).y(),
              window->tabs()->mapTo(window.get(), QPoint(0, 0)).y());

    config.headCount = 4;
    config.sourceText.clear();  // now the sentence is what is wrong
    window->document()->edit(config, QStringLiteral("empty source"));
    settle();
    EXPECT_TRUE(notice->isVisible());
    EXPECT_TRUE(notice->text().contains(StaleNotice::controlName(qkv::ConfigField::Source)))
        << notice->text().toStdString();
    EXPECT_FALSE(notice->text().contains(StaleNotice::controlName(qkv::ConfigField::Heads)));

    window->document()->edit(smallConfig(), QStringLiteral("valid again"));
    settle();
    EXPECT_TRUE(window->document()->isValid());
    EXPECT_FALSE(notice->isVisible());
    EXPECT_NE(window->tabs()->views().front()->result(), shown);
}

TEST(StaleNotice, AFailedComputationIsSaidUntilTheNextSettings)
{
    QWidget host;
    StaleNotice& notice = *new StaleNotice(&host);
    host.show();
    EXPECT_FALSE(notice.isVisible());
    notice.setComputeError(QStringLiteral("out of memory"));
    EXPECT_TRUE(notice.isVisible());
    EXPECT_TRUE(notice.text().contains(QStringLiteral("out of memory")));
    // Invalid settings are said instead of the failure, and without a result there is no "last".
    notice.setIssues({{qkv::ConfigField::DModel, "d_model must be at least 1"}}, false);
    EXPECT_TRUE(notice.text().contains(QStringLiteral("Nothing to show yet")));
    EXPECT_TRUE(notice.text().contains(QStringLiteral("d_model")));
    notice.setIssues({}, true);
    EXPECT_FALSE(notice.isVisible());
    notice.setComputeError(QStringLiteral("failed"));
    notice.setComputeError(QString());
    EXPECT_FALSE(notice.isVisible());
}

TEST(StaleNotice, ReadsOnLightAndDarkThemes)
{
    StaleNotice notice;
    QPalette dark = notice.palette();
    dark.setColor(QPalette::Base, QColor(0x20, 0x20, 0x20));
    notice.setPalette(dark);
    const QColor darkBackground = notice.palette().color(QPalette::Window);
    EXPECT_LT(darkBackground.lightness(), 128);
    EXPECT_GT(notice.palette().color(QPalette::WindowText).lightness(), darkBackground.lightness() + 100);
    QPalette light = notice.palette();
    light.setColor(QPalette::Base, Qt::white);
    notice.setPalette(light);
    EXPECT_GT(notice.palette().color(QPalette::Window).lightness(), 128);
    EXPECT_LT(notice.palette().color(QPalette::WindowText).lightness(),
              notice.palette().color(QPalette::Window).lightness() - 100);
}

}  // namespace
}  // namespace qkv::ui::testing
