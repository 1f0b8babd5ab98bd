#pragma once
// The Steps tab's rows of bars as charts (ChartModel), for Show as Table: the numbers a sighted
// user reads off the bars, one table each. Equation (1) for the selected head, query and key:
//   1. q, k and q ⊙ k per component (0 … d_k−1; before rotation too when rotary);
//   2. the query's row: each key's scaled score and its softmax weight A_i(query, key);
//   3. head_i's output row (0 … d_v−1) and the layer's output row (0 … d_model−1).
// Every number is StepNumbers', which are the core's.

#include <vector>

#include "ui/render/chart_model.hpp"
#include "ui/steps/step_numbers.hpp"

namespace qkv::ui {

std::vector<ChartModel> stepBarCharts(const StepNumbers& numbers);

}  // namespace qkv::ui
