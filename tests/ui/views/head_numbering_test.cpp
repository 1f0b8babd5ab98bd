// Every view numbers heads the same way: from 1, as the paper's head_1 ... head_h.

#include "tests/ui/support/window_fixture.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/factored/factored_view.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/views/head_box.hpp"

namespace qkv::ui::testing {
namespace {

TEST_F(WindowTest, FactoredViewCountsHeadsFromOneAndItsHeadBoxSelectsForEveryView)
{
    auto* tabs = window->findChild<ViewTabs*>();
    ASSERT_NE(tabs, nullptr);
    tabs->setCurrentWidget(tabs->factoredView());
    window->selection()->setHead(1);  // the second head: "Head 2" in the heads grid
    settle();
    auto* headBox = tabs->factoredView()->findChild<HeadBox*>();
    ASSERT_NE(headBox, nullptr);
    EXPECT_EQ(headBox->itemText(0), QStringLiteral("Head 1"));
    EXPECT_EQ(headBox->count(), 4);
    EXPECT_EQ(headBox->currentText(), QStringLiteral("Head 2"));

    headBox->activated(3);  // "Head 4"
    settle();
    EXPECT_EQ(window->selection()->head(), 3);
}

}  // namespace
}  // namespace qkv::ui::testing
