#pragma once
// "Every head placed by what it does": each head of every self-attention layer of the model as a
// point whose two coordinates are chosen among its role scores (the overview's HeadStatisticGrids,
// core/pipeline/model_overview.hpp), its copying score (core/circuits/head_circuits.hpp) and how
// switching it off changes the probability of one prediction (rankHeadsAtPosition).
//   previous_token   mean_t a_{t,t-1}
//   induction        mean_t a_{t,s+1}, s the token's last earlier position
//   duplicate_token  mean over t whose token occurs earlier of sum_{s<t, same token} a_{t,s}
//   first_token      mean_t a_{t,0}
//   copying          sum Re(lambda) / sum |lambda| over the eigenvalues of M^h = W_O^h W_U W_E W_V^h
//   entropy          mean_q H_q / ln v_q (normalised)
//   ablation         p(after) - p(before) of the prediction with the head switched off

#include <QColor>
#include <QString>
#include <QStringList>

#include <array>
#include <vector>

#include "core/common/matrix.hpp"
#include "core/pipeline/model_overview.hpp"

namespace qkv::ui {

struct AblationEffects;

enum class HeadsMapAxis { PreviousToken, Induction, DuplicateToken, FirstToken, Copying, Entropy, Ablation };
inline constexpr std::array<HeadsMapAxis, 7> kHeadsMapAxes{
    HeadsMapAxis::PreviousToken, HeadsMapAxis::Induction, HeadsMapAxis::DuplicateToken, HeadsMapAxis::FirstToken,
    HeadsMapAxis::Copying,       HeadsMapAxis::Entropy,   HeadsMapAxis::Ablation};

// "previous_token", ... as the role scores are named in files.
QString headsMapAxisId(HeadsMapAxis axis);
// The axis title: "previous-token score  mean a(t, t−1)".
QString headsMapAxisTitle(HeadsMapAxis axis);
// The range the axis always shows: [0, 1] for weights, [-1, 1] for the copying score; the
// ablation effect's own range.
void headsMapAxisRange(HeadsMapAxis axis, double& minimum, double& maximum);

struct HeadsMapAxes {
    HeadsMapAxis x = HeadsMapAxis::PreviousToken;
    HeadsMapAxis y = HeadsMapAxis::Induction;
    bool operator==(const HeadsMapAxes&) const = default;
};
// The axes chosen last in the app: what the exported heads map shows (any thread).
HeadsMapAxes chosenHeadsMapAxes();
void setChosenHeadsMapAxes(HeadsMapAxes axes);

struct HeadPoint {
    qkv::ModelHead head;  // model order, head from 0
    QString name;         // "1.3" as --ablate names it
    int layerSlot = 0;    // its layer's place among the layers drawn (its colour and legend entry)
    double x = 0, y = 0;
};

struct HeadsMapData {
    HeadsMapAxes axes;
    std::vector<HeadPoint> points;  // heads with both values
    QStringList layerNames;         // the legend: "layer 0 · self", one per self-attention layer
    qkv::Index withoutValue = 0;    // heads left out: a score that does not exist for them
    QString note;                   // why an axis has no values at all ("" when it has)
    QString ablationToken;          // the prediction the ablation axis is about
};

// `copying` (L x h) and `ablation` may be null: those axes then have no values and `note` says so.
HeadsMapData headsMapData(const qkv::ModelOverview& overview, const qkv::MatrixD* copying,
                          const AblationEffects* ablation, HeadsMapAxes axes);
// The value of one head on `axis` (NaN when there is none).
double headsMapValue(const qkv::ModelOverview& overview, const qkv::MatrixD* copying, const AblationEffects* ablation,
                     HeadsMapAxis axis, qkv::ModelHead head);

// The colour of the layer at `slot` of `count` (distinct hues, readable on white and dark).
QColor layerColor(int slot, int count);

}  // namespace qkv::ui
