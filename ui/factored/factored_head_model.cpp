#include "ui/factored/factored_head_model.hpp"

#include <algorithm>

namespace qkv::ui {

FactoredHeadModel FactoredHeadModel::build(std::shared_ptr<const Result> result, Index head)
{
    FactoredHeadModel model;
    model.result = std::move(result);
    if (!model.result) {
        return model;
    }
    const Result& r = *model.result;
    model.headCount = r.config.headCount;
    model.d_model = r.weights.d_model();
    if (model.headCount < 1 || model.d_model < 1) {
        return model;
    }
    model.head = std::clamp<Index>(head, 0, model.headCount - 1);
    Expected<FactoredMatrix> factored =
        FactoredMatrix::checkedForHead(r.weights, model.headCount, model.head);
    if (!factored) {
        return model;
    }
    model.factored.emplace(std::move(factored).value());
    model.d_k = model.factored->d_k();
    (void)model.factored->singularValues();  // fill the shared cache now, not while painting
    model.scores = scoresBothWays(*model.factored, r.queryInput, r.keyValueInput);
    return model;
}

}  // namespace qkv::ui
