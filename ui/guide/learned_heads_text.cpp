#include "ui/guide/learned_heads_text.hpp"

#include <QCoreApplication>
#include <QStringList>

#include <cmath>

#include "core/analysis/head_roles.hpp"
#include "ui/predict/prediction_data.hpp"

namespace qkv::ui {
namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::LearnedHeadsText)
};

double scoreOr0(double score) { return std::isnan(score) ? 0.0 : score; }

// Every head `role` names, as "1.1 (0.86)", strongest first.
QStringList headsOfRole(const qkv::ModelOverview& overview, qkv::HeadRole role)
{
    const qkv::HeadStatisticGrids& s = overview.statistics;
    std::vector<std::pair<double, qkv::ModelHead>> found;
    for (qkv::Index layer = 0; layer < s.previousToken.rows(); ++layer)
        for (qkv::Index head = 0; head < s.previousToken.cols(); ++head) {
            const double previous = s.previousToken(layer, head), induction = s.induction(layer, head);
            if (qkv::headRole(previous, induction) != role) continue;
            found.push_back({scoreOr0(role == qkv::HeadRole::Induction ? induction : previous), {layer, head}});
        }
    std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    QStringList named;
    for (const auto& [score, head] : found)
        named << QStringLiteral("%1 (%2)").arg(headText(*overview.model, head)).arg(score, 0, 'f', 2);
    return named;
}

}  // namespace

std::optional<qkv::ModelHead> strongestInductionHead(const qkv::ModelOverview& overview)
{
    const qkv::HeadStatisticGrids& s = overview.statistics;
    std::optional<qkv::ModelHead> strongest;
    double best = -1.0;
    for (qkv::Index layer = 0; layer < s.induction.rows(); ++layer)
        for (qkv::Index head = 0; head < s.induction.cols(); ++head) {
            const double induction = s.induction(layer, head);
            if (qkv::headRole(s.previousToken(layer, head), induction) != qkv::HeadRole::Induction) continue;
            if (induction > best) {
                best = induction;
                strongest = qkv::ModelHead{layer, head};
            }
        }
    return strongest;
}

QString learnedRolesText(const qkv::ModelOverview& overview)
{
    const QStringList previous = headsOfRole(overview, qkv::HeadRole::PreviousToken);
    const QStringList induction = headsOfRole(overview, qkv::HeadRole::Induction);
    if (previous.isEmpty() && induction.isEmpty())
        return Text::tr("No head scores %1 as a previous-token or induction head on these tokens.")
            .arg(qkv::kRoleThreshold, 0, 'f', 1);
    QStringList parts;
    if (!previous.isEmpty()) parts << Text::tr("Previous-token heads: %1.").arg(previous.join(QStringLiteral(", ")));
    if (!induction.isEmpty()) parts << Text::tr("Induction heads: %1.").arg(induction.join(QStringLiteral(", ")));
    return parts.join(QLatin1Char(' '));
}

QString switchedOffText(const qkv::ModelOverview& overview)
{
    if (!overview.model || overview.ablatedHeads().empty()) return {};
    const qkv::Index position = defaultPredictionPosition(overview);
    if (position < 0) return {};
    const PredictedTokenNames names(*overview.model);
    const qkv::Expected<PredictionComparison> comparison = comparePredictions(overview, position, names);
    if (!comparison || comparison->rows.empty()) return {};
    // Rows come most likely with every head on first.
    const PredictionRow& top = comparison->rows.front();
    const QString verb = top.after < top.before ? Text::tr("falls") : Text::tr("rises");
    return Text::tr("With head %1 off, p(«%2») %3 %4 from %5 to %6.")
        .arg(comparison->headsOffText, top.token, comparison->positionName, verb, probabilityText(top.before),
             probabilityText(top.after));
}

}  // namespace qkv::ui
