// What a trained model's heads do (task_scores.hpp): the task's attention scores over held-out
// examples, and the spectrum of each head's W_i.
//
// Symbols: d_model, h heads, d_k = d_model / h; W_i the head's d_model x d_model bilinear form
// (docs/architecture.md, "Numerical conventions"): W_i^Q (W_i^K)^T for factored heads, the learned matrix for full ones.
#include "core/training/task_scores.hpp"

#include <limits>

#include "core/common/decompositions.hpp"
#include "core/factored/factored_matrix.hpp"
#include "core/training/head_score_sums.hpp"

namespace qkv {

namespace {

// Singular values of head `head`'s W_i in decreasing order.
std::vector<double> headSingularValues(const ModelParameters<float>& parameters, const AttentionLayerInfo& info,
                                       Index layer, Index head)
{
    const Index d_k = parameters.spec.d_k();
    VectorD values;
    if (parameters.spec.scoreForm == ScoreForm::Factored) {
        // From the two thin d_model x d_k factors (thin QRs, then the SVD of the d_k x d_k
        // middle), never from the dense d_model x d_model product: d_k values, the rest are 0.
        const MatrixD left = parameters.tensor(info.name + ".W_Q").middleCols(head * d_k, d_k).cast<double>();
        const MatrixD right = parameters.tensor(info.name + ".W_K").middleCols(head * d_k, d_k).cast<double>();
        values = FactoredMatrix(left, right).singularValues();
    } else {
        // A full head has no factors: the SVD of the learned d_model x d_model W_i, in double.
        const Eigen::MatrixXd dense = headBilinearForm(parameters, layer, head);
        if (dense.allFinite())
            values = Eigen::BDCSVD<Eigen::MatrixXd>(dense).singularValues();
        else
            values = VectorD::Constant(dense.rows(), std::numeric_limits<double>::quiet_NaN());
    }
    return {values.begin(), values.end()};
}

}  // namespace

std::vector<HeadScores> scoreHeads(const ModelParameters<float>& parameters, TaskKind task,
                                   const std::vector<TaskExample>& examples)
{
    const std::vector<AttentionLayerInfo> layers = attentionLayers(parameters.spec);
    const Index h = parameters.spec.headCount;
    std::vector<HeadScoreSums> sums(layers.size() * static_cast<std::size_t>(h));
    for (const TaskExample& example : examples) {
        const ModelTrace trace = traceExample(parameters, example.ids);
        for (std::size_t layer = 0; layer < layers.size(); ++layer) {
            const AttentionMode kind = layers[layer].kind;
            for (Index head = 0; head < h; ++head) {
                const MatrixF& attention = trace.layers[layer].attention[static_cast<std::size_t>(head)];
                HeadScoreSums& sum = sums[layer * static_cast<std::size_t>(h) + static_cast<std::size_t>(head)];
                if (task != TaskKind::Induction && kind == AttentionMode::Cross)
                    addAlignment(attention, example.alignment, sum);
                if (task == TaskKind::Induction && kind == AttentionMode::DecoderCausal) {
                    addInduction(attention, example.period, sum);
                    addPreviousToken(attention, sum);
                }
            }
        }
    }

    std::vector<HeadScores> scores;
    for (std::size_t layer = 0; layer < layers.size(); ++layer) {
        for (Index head = 0; head < h; ++head) {
            const HeadScoreSums& sum = sums[layer * static_cast<std::size_t>(h) + static_cast<std::size_t>(head)];
            HeadScores score;
            score.layer = static_cast<Index>(layer);
            score.head = head;
            score.alignment = sum.alignment();
            score.induction = sum.induction();
            score.previousToken = sum.previousToken();
            score.singularValues = headSingularValues(parameters, layers[layer], score.layer, head);
            score.effectiveRank = effectiveRank(score.singularValues);
            scores.push_back(std::move(score));
        }
    }
    return scores;
}

}  // namespace qkv
