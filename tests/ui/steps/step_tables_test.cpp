// The Steps tab's bars as tables: each table holds the core's own numbers (read here straight from
// the Result's matrices, not through StepNumbers), and the Steps canvas offers them (Show as Table).

#include <gtest/gtest.h>

#include <QAction>

#include "tests/ui/support/layer_test_support.hpp"
#include "ui/figure_widgets/chart_table.hpp"
#include "ui/steps/step_numbers.hpp"
#include "ui/steps/step_tables.hpp"

namespace qkv::ui::testing {
namespace {

double cell(const ChartTableModel& table, int row, int column)
{
    return table.data(table.index(row, column), Qt::UserRole).toDouble();
}

TEST(StepTables, EachRowOfBarsIsATableOfTheCoresNumbers)
{
    const auto result = computeResult(crossConfig());
    ASSERT_NE(result, nullptr);
    const int head = 1, query = 1, key = 2;
    const std::vector<ChartModel> charts = stepBarCharts(gatherStepNumbers(*result, head, query, key));
    ASSERT_EQ(charts.size(), 4u);
    const qkv::AttentionResult& a = result->attention;
    const qkv::Index d_k = a.grouping.d_k;

    // 1. q, k and q ⊙ k: row j is component j of Q_i[query] and K_i[key].
    const ChartTableModel dot(charts[0]);
    ASSERT_EQ(dot.rowCount(), d_k);
    ASSERT_EQ(dot.columnCount(), 4);  // component, q, k, q ⊙ k
    for (qkv::Index j = 0; j < d_k; ++j) {
        const double q = a.query(query, head * d_k + j), k = a.key(key, head * d_k + j);
        EXPECT_FLOAT_EQ(cell(dot, static_cast<int>(j), 1), q);
        EXPECT_FLOAT_EQ(cell(dot, static_cast<int>(j), 2), k);
        EXPECT_NEAR(cell(dot, static_cast<int>(j), 3), q * k, 1e-5 * (1 + std::abs(q * k)));
    }
    // 2. The query's row of A_i, one row per key, and it sums to 1.
    const ChartTableModel row(charts[1]);
    const qkv::MatrixF& weights = a.heads[head].attention;
    ASSERT_EQ(row.rowCount(), weights.cols());
    double sum = 0;
    for (int j = 0; j < row.rowCount(); ++j) {
        EXPECT_FLOAT_EQ(cell(row, j, 2), weights(query, j));
        sum += cell(row, j, 2);
    }
    EXPECT_NEAR(sum, 1.0, 1e-5);
    // 3. The layer's output row.
    const ChartTableModel output(charts[3]);
    ASSERT_EQ(output.rowCount(), a.output.cols());
    for (int c = 0; c < output.rowCount(); ++c) EXPECT_FLOAT_EQ(cell(output, c, 1), a.output(query, c));
}

TEST(StepTables, NoResultNoTables) { EXPECT_TRUE(stepBarCharts(StepNumbers{}).empty()); }

}  // namespace
}  // namespace qkv::ui::testing
