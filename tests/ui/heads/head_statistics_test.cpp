// The per-head statistics beside the heads grid: exactly core's headStatisticsSummaries,
// sortable, and a click on a row selects its head for every view.

#include <QHeaderView>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>

#include <cmath>

#include "core/analysis/head_statistics.hpp"
#include "tests/ui/support/layer_test_support.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/heads/head_statistics_table.hpp"
#include "ui/heads/heads_view.hpp"

namespace qkv::ui::testing {
namespace {

using StatisticsWindowTest = WindowTest;

double shown(const HeadStatisticsTable& table, int row, int column)
{
    return table.model()->item(row, column)->data(Qt::UserRole + 1).toDouble();
}

void expectEqualOrBothNaN(double shownValue, double core)
{
    if (std::isnan(core))
        EXPECT_TRUE(std::isnan(shownValue));
    else
        EXPECT_EQ(shownValue, core);
}

TEST_F(StatisticsWindowTest, TheTableIsCoresSummariesAndFollowsTheMode)
{
    HeadStatisticsTable* table = window->headsView()->statisticsTable();
    for (qkv::AttentionMode mode : {qkv::AttentionMode::EncoderSelf, qkv::AttentionMode::Cross}) {
        qkv::Config config = smallConfig();
        config.mode = mode;
        setConfig(config);
        waitUntilIdle(*table);
        const auto core = qkv::headStatisticsSummaries(*window->document()->result());
        ASSERT_EQ(table->model()->rowCount(), static_cast<int>(core.size()));
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            const auto& s = core[static_cast<std::size_t>(table->headOfRow(row))];
            EXPECT_EQ(shown(*table, row, HeadStatisticsTable::Entropy), s.entropy);
            EXPECT_EQ(shown(*table, row, HeadStatisticsTable::NormalizedEntropy), s.normalizedEntropy);
            EXPECT_EQ(shown(*table, row, HeadStatisticsTable::MeanDistance), s.meanDistance);
            EXPECT_EQ(shown(*table, row, HeadStatisticsTable::MaxWeight), s.maxWeight);
            expectEqualOrBothNaN(shown(*table, row, HeadStatisticsTable::SelfWeight), s.selfWeight);
        }
        // Weight on the own position only where there is one.
        EXPECT_EQ(table->table()->isColumnHidden(HeadStatisticsTable::SelfWeight), mode == qkv::AttentionMode::Cross);
    }
}

TEST_F(StatisticsWindowTest, SortingByAColumnOrdersTheHeadsAndAClickSelectsTheHead)
{
    HeadStatisticsTable* table = window->headsView()->statisticsTable();
    waitUntilIdle(*table);
    table->table()->sortByColumn(HeadStatisticsTable::Entropy, Qt::DescendingOrder);
    const auto core = qkv::headStatisticsSummaries(*window->document()->result());
    for (int row = 1; row < table->model()->rowCount(); ++row)
        EXPECT_GE(core[static_cast<std::size_t>(table->headOfRow(row - 1))].entropy,
                  core[static_cast<std::size_t>(table->headOfRow(row))].entropy);
    // Click the last row: its head becomes the selection for every view.
    const int row = table->model()->rowCount() - 1;
    const int head = table->headOfRow(row);
    const QRect rect = table->table()->visualRect(table->model()->index(row, HeadStatisticsTable::Entropy));
    QTest::mouseClick(table->table()->viewport(), Qt::LeftButton, {}, rect.center());
    EXPECT_EQ(window->selection()->head(), head);
    // And the table follows a selection made elsewhere.
    window->selection()->setHead(table->headOfRow(0));
    EXPECT_EQ(table->table()->currentIndex().row(), 0);
}

TEST_F(StatisticsWindowTest, SwitchedOffHeadsAreMarked)
{
    qkv::Config config = smallConfig();
    config.ablatedHeads = {2};
    setConfig(config);
    HeadStatisticsTable* table = window->headsView()->statisticsTable();
    waitUntilIdle(*table);
    for (int row = 0; row < table->model()->rowCount(); ++row)
        EXPECT_EQ(table->model()->item(row, 0)->text().contains(QStringLiteral("(off)")), table->headOfRow(row) == 2);
}

}  // namespace
}  // namespace qkv::ui::testing

namespace qkv::ui::testing {
namespace {

// At every window size each column and row of the table shows whole (beside the grid when they
// fit in 2/5 of its width, under it otherwise), and the grid keeps most of the room.
TEST_F(StatisticsWindowTest, TheTableShowsEveryColumnAndLeavesMostOfTheRoomToTheGrid)
{
    for (const QSize size : {QSize(1000, 700), QSize(1400, 900), QSize(1920, 1080)}) {
        window->resize(size);
        settle();
        QCoreApplication::processEvents();
        HeadsView* heads = window->headsView();
        HeadStatisticsTable* statistics = heads->statisticsTable();
        waitUntilIdle(*statistics);
        QCoreApplication::processEvents();
        QTableView* table = statistics->table();
        const QHeaderView* columns = table->horizontalHeader();
        EXPECT_LE(columns->length(), table->viewport()->width()) << size.width() << ": a column is cut";
        EXPECT_LE(table->verticalHeader()->length(), table->viewport()->height()) << size.width() << ": a row is cut";
        auto* splitter = qobject_cast<QSplitter*>(statistics->parentWidget());
        ASSERT_NE(splitter, nullptr);
        if (splitter->orientation() == Qt::Horizontal)
            EXPECT_LE(statistics->width(), splitter->width() * 2 / 5 + 1) << size.width();
        else
            EXPECT_LE(statistics->height(), splitter->height() * 2 / 5 + 1) << size.width();
    }
}

}  // namespace
}  // namespace qkv::ui::testing
