#include "ui/factored/factored_head_model.hpp"

#include <algorithm>

namespace qkv::ui {

FactoredHeadModel FactoredHeadModel::build(std::shared_ptr<const Result> result, Index head,
                                           bool withScores)
{
    FactoredHeadModel model;
    model.result = std::move(result);
    if (!model.result) {
        return model;
    }
    const Result& r = *model.result;
    model.headCount = r.config.headCount;
    model.d_model = r.weights->d_model();
    if (model.headCount < 1 || model.d_model < 1) {
        return model;
    }
    model.head = std::clamp<Index>(head, 0, model.headCount - 1);
    Expected<FactoredMatrix> factored =
        FactoredMatrix::checkedForHead(*r.weights, model.headCount, model.head);
    if (!factored) {
        return model;
    }
    model.factored.emplace(std::move(factored).value());
    model.d_k = model.factored->d_k();
    const MatrixF& wq = r.weights->queryProjection;  // d_model x h d_k, head i owns columns [i d_k, (i+1) d_k)
    if (wq.cols() == model.headCount * model.d_k) {
        for (Index i = 0; i < model.headCount; ++i)
            model.headLargestQueryWeights.push_back(
                static_cast<double>(wq.middleCols(i * model.d_k, model.d_k).cwiseAbs().maxCoeff()));
    }
    (void)model.factored->singularValues();  // fill the shared cache now, not while painting
    if (withScores) {
        model.scores = scoresBothWays(*model.factored, r.queryInput, r.keyValueInput);
        model.scoresReady = true;
    }
    return model;
}

FactoredHeadModel FactoredHeadModel::withScoresComputed() const
{
    FactoredHeadModel copy = *this;
    if (copy.valid() && copy.result) {
        copy.scores = scoresBothWays(*copy.factored, copy.result->queryInput, copy.result->keyValueInput);
        copy.scoresReady = true;
    }
    return copy;
}

double FactoredHeadModel::factorWork(const Result* result)
{
    if (!result || !result->weights || result->config.headCount < 1) {
        return 0.0;
    }
    const double d = static_cast<double>(result->weights->d_model());
    const double dk = static_cast<double>(result->weights->queryWidth()) / static_cast<double>(result->config.headCount);
    // The factors copied to double, their two thin QRs, the d_k x d_k middle and its SVD
    // (a small multiple of d_k^3), and the scan of W^Q for each head's largest weight.
    return 2.0 * d * dk + 4.0 * d * dk * dk + 12.0 * dk * dk * dk + d * static_cast<double>(result->weights->queryWidth());
}

double FactoredHeadModel::scoreWork() const
{
    if (!valid() || !result) {
        return 0.0;
    }
    const double d = static_cast<double>(d_model), dk = static_cast<double>(d_k);
    const double nq = static_cast<double>(result->queryInput.rows());
    const double nk = static_cast<double>(result->keyValueInput.rows());
    // dense W_i (d^2 d_k) twice (here and in core's report), X_q W_i, and the small products.
    return 2.0 * d * d * dk + 2.0 * nq * d * d + (nq + nk) * d * dk + nq * nk * d;
}

}  // namespace qkv::ui
