#include "ui/circuits/heads_map_data.hpp"

#include <QCoreApplication>

#include <atomic>
#include <cmath>
#include <limits>

#include "ui/circuits/circuit_store.hpp"
#include "ui/modelgrid/model_grid_text.hpp"

namespace qkv::ui {
namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::HeadsMap)
};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::atomic<int> chosenX{static_cast<int>(HeadsMapAxis::PreviousToken)};
std::atomic<int> chosenY{static_cast<int>(HeadsMapAxis::Induction)};

double gridValue(const qkv::MatrixD& grid, qkv::ModelHead head)
{
    if (head.layer >= grid.rows() || head.head >= grid.cols()) return kNaN;
    return grid(head.layer, head.head);
}

// The role score grids of the overview (L x h), one per axis that is a role score.
const qkv::MatrixD* roleGrid(const qkv::HeadStatisticGrids& grids, HeadsMapAxis axis)
{
    switch (axis) {
    case HeadsMapAxis::PreviousToken: return &grids.previousToken;
    case HeadsMapAxis::Induction: return &grids.induction;
    case HeadsMapAxis::DuplicateToken: return &grids.duplicateToken;
    case HeadsMapAxis::FirstToken: return &grids.firstTokenRole;
    case HeadsMapAxis::Entropy: return &grids.entropy;
    default: return nullptr;
    }
}

}  // namespace

QString headsMapAxisId(HeadsMapAxis axis)
{
    switch (axis) {
    case HeadsMapAxis::PreviousToken: return QStringLiteral("previous_token");
    case HeadsMapAxis::Induction: return QStringLiteral("induction");
    case HeadsMapAxis::DuplicateToken: return QStringLiteral("duplicate_token");
    case HeadsMapAxis::FirstToken: return QStringLiteral("first_token");
    case HeadsMapAxis::Copying: return QStringLiteral("copying");
    case HeadsMapAxis::Entropy: return QStringLiteral("entropy");
    case HeadsMapAxis::Ablation: return QStringLiteral("ablation");
    }
    return {};
}

QString headsMapAxisTitle(HeadsMapAxis axis)
{
    switch (axis) {
    case HeadsMapAxis::PreviousToken: return Text::tr("previous-token score: mean a(t, t−1)");
    case HeadsMapAxis::Induction: return Text::tr("induction score: mean a(t, s+1), s the token's last occurrence");
    case HeadsMapAxis::DuplicateToken: return Text::tr("duplicate-token score: weight on earlier copies of the token");
    case HeadsMapAxis::FirstToken: return Text::tr("first-token score: mean a(t, 0)");
    case HeadsMapAxis::Copying: return Text::tr("copying score: Σ Re λ / Σ |λ| of the OV circuit");
    case HeadsMapAxis::Entropy: return Text::tr("normalised entropy of the attention rows");
    case HeadsMapAxis::Ablation: return Text::tr("ablation effect: change of the prediction's probability");
    }
    return {};
}

void headsMapAxisRange(HeadsMapAxis axis, double& minimum, double& maximum)
{
    minimum = axis == HeadsMapAxis::Copying ? -1.0 : 0.0;
    maximum = 1.0;
    if (axis == HeadsMapAxis::Ablation) minimum = maximum = 0.0;  // its own range (the data's)
}

HeadsMapAxes chosenHeadsMapAxes()
{
    return {static_cast<HeadsMapAxis>(chosenX.load()), static_cast<HeadsMapAxis>(chosenY.load())};
}

void setChosenHeadsMapAxes(HeadsMapAxes axes)
{
    chosenX = static_cast<int>(axes.x);
    chosenY = static_cast<int>(axes.y);
}

double headsMapValue(const qkv::ModelOverview& overview, const qkv::MatrixD* copying, const AblationEffects* ablation,
                     HeadsMapAxis axis, qkv::ModelHead head)
{
    if (const qkv::MatrixD* grid = roleGrid(overview.statistics, axis)) return gridValue(*grid, head);
    if (axis == HeadsMapAxis::Copying) return copying ? gridValue(*copying, head) : kNaN;
    if (!ablation) return kNaN;
    for (const qkv::HeadEffect& effect : ablation->effects)
        if (effect.candidate.layer == head.layer && effect.candidate.head == head.head) return effect.change.change;
    return kNaN;
}

HeadsMapData headsMapData(const qkv::ModelOverview& overview, const qkv::MatrixD* copying,
                          const AblationEffects* ablation, HeadsMapAxes axes)
{
    HeadsMapData data;
    data.axes = axes;
    if (ablation) data.ablationToken = ablation->token;
    for (qkv::Index l = 0; l < overview.layerCount(); ++l) {
        const qkv::LayerRun& layer = overview.layer(l);
        if (layer.layer.kind == qkv::AttentionMode::Cross) continue;
        const int slot = static_cast<int>(data.layerNames.size());
        data.layerNames.push_back(Text::tr("layer %1").arg(layerLabel(layer)));
        for (qkv::Index h = 0; h < layer.layer.headCount; ++h) {
            const qkv::ModelHead head{l, h};
            const double x = headsMapValue(overview, copying, ablation, axes.x, head);
            const double y = headsMapValue(overview, copying, ablation, axes.y, head);
            if (!std::isfinite(x) || !std::isfinite(y)) {
                ++data.withoutValue;
                continue;
            }
            data.points.push_back({head, modelHeadName(layer, h), slot, x, y});
        }
    }
    for (const HeadsMapAxis axis : {axes.x, axes.y}) {
        if (axis == HeadsMapAxis::Copying && !copying) data.note = Text::tr("The copying scores are being computed.");
        if (axis == HeadsMapAxis::Ablation && !ablation)
            data.note = Text::tr("Press Compute to rank the heads by their effect on the prediction.");
    }
    return data;
}

QColor layerColor(int slot, int count)
{
    // Hues spread around the wheel, alternating lightness so neighbouring layers differ.
    const double hue = count > 0 ? std::fmod(0.6 + static_cast<double>(slot) / std::max(1, count), 1.0) : 0.6;
    return QColor::fromHslF(static_cast<float>(hue), 0.7f, slot % 2 == 0 ? 0.42f : 0.55f);
}

}  // namespace qkv::ui
