#pragma once
// A main window on the offscreen platform, shown at 1400 x 900, with helpers to set a
// configuration and wait for its result. The window starts from an autosave of smallConfig()
// (the test main keeps the app's data in a throw-away folder), so no test depends on another's
// last state and none waits for the first-start example's presets to be fitted.

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QDir>
#include <QTest>

#include <memory>

#include "core/config/config.hpp"
#include "core/session/session.hpp"
#include "ui/document/autosave.hpp"
#include "ui/document/document.hpp"
#include "ui/figure_widgets/chart_view.hpp"
#include "ui/mainwindow/main_window.hpp"

namespace qkv::ui::testing {

class WindowTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        qkv::Session start;
        start.config = smallConfig();
        leaveAutosave(start);
        window = std::make_unique<MainWindow>();
        window->resize(1400, 900);
        window->show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
        setConfig(smallConfig());
    }
    void TearDown() override { window.reset(); }

    static qkv::Config smallConfig()
    {
        qkv::Config config;
        config.sourceText = "the cat sat on the mat";
        config.targetText = "le chat";
        config.mode = qkv::AttentionMode::EncoderSelf;
        config.d_model = 64;
        config.headCount = 4;
        config.seed = 3;
        return config;
    }

    // What the next window finds as the last run's state (nothing else is left behind).
    static void leaveAutosave(const qkv::Session& session)
    {
        clearAutosave();
        ASSERT_TRUE(QDir().mkpath(Autosave::defaultDirectory()));
        ASSERT_TRUE(qkv::writeSession(Autosave::sessionPath(Autosave::defaultDirectory()).toStdString(), session).ok());
    }
    static void clearAutosave() { QDir(Autosave::defaultDirectory()).removeRecursively(); }

    void setConfig(const qkv::Config& config)
    {
        window->document()->reset(config);
        settle();
    }
    // The result computed and delivered, and every visible chart drawn (charts are built one
    // per turn of the event loop).
    void settle()
    {
        window->document()->waitUntilIdle();
        QCoreApplication::processEvents();
        while (ChartView::buildsPending()) QCoreApplication::processEvents();
    }

    std::unique_ptr<MainWindow> window;
};

}  // namespace qkv::ui::testing
