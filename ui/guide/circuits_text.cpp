#include "ui/guide/circuits_text.hpp"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/analysis/head_roles.hpp"
#include "core/circuits/head_circuits.hpp"
#include "ui/guide/learned_heads_text.hpp"
#include "ui/predict/prediction_data.hpp"

namespace qkv::ui {
namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::CircuitsText)
};

// W_U W_E costs V d_model^2 multiply-adds: the demo model's 1.2 M is nothing, a real model's
// seconds, which the GUI thread that words the guide's panel must not spend.
constexpr double kMeasuredHere = 5e7;

// The self-attention head with the largest previous-token score (at least kRoleThreshold).
std::optional<qkv::ModelHead> strongestPreviousTokenHead(const qkv::ModelOverview& overview)
{
    const qkv::MatrixD& scores = overview.statistics.previousToken;  // L x h, NaN: none
    std::optional<qkv::ModelHead> best;
    double bestScore = qkv::kRoleThreshold;
    for (qkv::Index layer = 0; layer < scores.rows(); ++layer)
        for (qkv::Index head = 0; head < scores.cols(); ++head)
            if (const double s = scores(layer, head); !std::isnan(s) && s >= bestScore) {
                bestScore = s;
                best = qkv::ModelHead{layer, head};
            }
    return best;
}

std::vector<std::int32_t> promptTokens(const qkv::ModelOverview& overview, const qkv::ModelHead& head)
{
    return qkv::distinctTokenIds(
        qkv::layerQueryTokens(*overview.model, overview.sentences, overview.layer(head.layer)).ids());
}

// "Induction head 1.1: copying score 0.99, 16 of its 16 eigenvalues with a positive real part; its
// OV circuit puts the attended token itself first for 7 of the prompt's 9 tokens."
QString inductionSentence(const qkv::ModelOverview& overview, const qkv::CircuitBasis& basis,
                          const qkv::ModelHead& head)
{
    const qkv::PretrainedModel& model = *overview.model;
    const auto spectrum = qkv::headSpectrum(model, basis, {head.layer, head.head});
    const std::vector<std::int32_t> tokens = promptTokens(overview, head);
    const auto ov = qkv::tokenCircuits(model, {head.layer, head.head}, qkv::CircuitSide::OV, tokens, 1);
    if (!spectrum || !ov) return {};
    const auto positive = std::count_if(spectrum->eigenvalues.begin(), spectrum->eigenvalues.end(),
                                        [](const std::complex<double>& lambda) { return lambda.real() > 0.0; });
    const auto itself = std::count_if(ov->begin(), ov->end(), [](const qkv::TokenCircuit& circuit) {
        return !circuit.top.empty() && circuit.top.front().id == circuit.id;
    });
    return Text::tr(
               "Induction head %1: copying score %2, %3 of its %4 eigenvalues with a positive real part; "
               "its OV circuit puts the attended token itself first for %5 of the prompt's %6 tokens.")
        .arg(headText(model, head))
        .arg(spectrum->copyingScore, 0, 'f', 2)
        .arg(positive)
        .arg(spectrum->eigenvalues.size())
        .arg(itself)
        .arg(ov->size());
}

// "Previous-token head 0.2's QK circuit: each token's best key scores only 0.01 to 0.05: by token
// identity it prefers almost nothing, so it finds the token before by position, which the direct
// path leaves out." (scores are logits: e^0.05 makes a key 5 % likelier than one scoring 0)
QString previousTokenSentence(const qkv::ModelOverview& overview, const qkv::ModelHead& head)
{
    const qkv::PretrainedModel& model = *overview.model;
    const std::vector<std::int32_t> tokens = promptTokens(overview, head);
    const auto qk = qkv::tokenCircuits(model, {head.layer, head.head}, qkv::CircuitSide::QK, tokens, 1);
    if (!qk || qk->empty()) return {};
    double lowest = INFINITY, highest = -INFINITY;
    for (const qkv::TokenCircuit& circuit : *qk) {
        if (circuit.top.empty()) continue;
        lowest = std::min(lowest, circuit.top.front().value);
        highest = std::max(highest, circuit.top.front().value);
    }
    return Text::tr(
               "Previous-token head %1's QK circuit: each token's best key scores only %2 to %3: by token identity it "
               "prefers almost nothing, so it finds the token before by position, which the direct path leaves out "
               "(Copying scores: click %1 to see its tables).")
        .arg(headText(model, head))
        .arg(lowest, 0, 'f', 2)
        .arg(highest, 0, 'f', 2);
}

}  // namespace

QString circuitsText(const qkv::ModelOverview& overview)
{
    if (!overview.model || !overview.run) return {};
    const qkv::PretrainedModel& model = *overview.model;
    if (!qkv::noCircuitsReason(model).empty()) return {};
    const auto& table = model.singleStack().embeddings.tokens;  // V x d_model
    if (static_cast<double>(table.rows()) * table.cols() * table.cols() > kMeasuredHere) return {};
    const auto basis = qkv::circuitBasis(model);
    if (!basis) return {};
    QStringList sentences;
    if (const auto induction = strongestInductionHead(overview))
        sentences << inductionSentence(overview, *basis, *induction);
    if (const auto previous = strongestPreviousTokenHead(overview))
        sentences << previousTokenSentence(overview, *previous);
    sentences.removeAll(QString());
    return sentences.join(QLatin1Char(' '));
}

}  // namespace qkv::ui
