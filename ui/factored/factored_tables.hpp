#pragma once
// The Factored W_i tab's maps as screen readers read them (ui/accessibility/cell_table.hpp):
//   - W_i = W_i^Q (W_i^K)^T, d_model x d_model: each cell its entry, computed from the factors
//     when asked (row i of W_i^Q times row j of W_i^K, d_k multiply-adds), never the dense W_i;
//   - the scores both ways, n_q x n_k: each cell the score through W_i and through the factors,
//     so a reader hears the two agree (without biases, Q_i K_i^T = X_q W_i X_kv^T).

#include <functional>

#include "ui/accessibility/cell_table.hpp"
#include "ui/factored/factored_head_model.hpp"

namespace qkv::ui {

// `shown`: the model the tab shows now (null or invalid: none).
using ShownFactoredModel = std::function<const FactoredHeadModel*()>;

CellTable factorProductTable(ShownFactoredModel shown);
CellTable scoresBothWaysTable(ShownFactoredModel shown);

}  // namespace qkv::ui
