#pragma once
// The window the guide's demo-model steps are tested on: 1000 x 700, the student guide found, the
// document's questions answered from a PromptLog (Discard unless a test says otherwise), and a
// step reached as the tour reaches it (the model loaded, its overview run: up to a minute on a
// busy machine, then the layout settled).

#include <QMessageBox>
#include <QTest>

#include <chrono>
#include <memory>

#include "tests/ui/support/recording_prompts.hpp"
#include "tests/ui/support/wait_until.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/guide/student_guide.hpp"
#include "ui/mainwindow/document_files.hpp"

namespace qkv::ui::testing {

class DemoGuideTest : public WindowTest {
protected:
    void SetUp() override
    {
        WindowTest::SetUp();
        window->resize(1000, 700);
        log = std::make_shared<PromptLog>();
        log->answer = QMessageBox::Discard;
        window->files()->setPrompts(recordingPrompts(log));
        settle();
        guide = window->findChild<StudentGuide*>();
        ASSERT_NE(guide, nullptr);
    }
    void reach(int index)
    {
        guide->goTo(index);
        ASSERT_TRUE(waitUntil([&] { return guide->isStepReached(); }, std::chrono::milliseconds(60000)))
            << "step " << index << " never reached";
        settle();
        QTest::qWait(20);  // layouts and scroll positions settle through posted events
    }

    StudentGuide* guide = nullptr;
    std::shared_ptr<PromptLog> log;
};

}  // namespace qkv::ui::testing
