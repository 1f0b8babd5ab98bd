#pragma once
// A main window on the offscreen platform, shown at 1400 x 900, with helpers to set a
// configuration and wait for its result.

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QTest>

#include <memory>

#include "core/config/config.hpp"
#include "ui/document/document.hpp"
#include "ui/mainwindow/main_window.hpp"

namespace qkv::ui::testing {

class WindowTest : public ::testing::Test {
protected:
    void SetUp() override
    {
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

    void setConfig(const qkv::Config& config)
    {
        window->document()->reset(config);
        settle();
    }
    void settle()
    {
        window->document()->waitUntilIdle();
        QCoreApplication::processEvents();
    }

    std::unique_ptr<MainWindow> window;
};

}  // namespace qkv::ui::testing
