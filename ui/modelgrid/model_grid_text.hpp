#pragma once
// The words of the Model tab and its figures, defined once: a layer as people find it on the
// command line ("3 · self": the --list-layers index and its kind), a head as --ablate names it
// ("3.2": that index, then the head from 1), the four per-head statistics with their units, and
// the tooltips built from core's numbers (ModelOverview), their data escaped.

#include <QString>
#include <QStringList>

#include "core/pipeline/model_overview.hpp"

namespace qkv::ui {

// The four per-head statistics of every layer (HeadStatisticGrids), in the order they are drawn.
enum class ModelStatistic { Entropy, MeanDistance, FirstTokenWeight, OwnPositionWeight };
inline constexpr int kModelStatisticCount = 4;

// The grid of one statistic, L x h.
const qkv::MatrixD& statisticGrid(const qkv::HeadStatisticGrids& grids, ModelStatistic statistic);
// Its panel title ("Entropy (normalised)") and its colour bar's quantity and range.
QString statisticTitle(ModelStatistic statistic);
QString statisticLegend(ModelStatistic statistic);

// "self", "causal" or "cross": a layer's kind in a row label.
QString layerKindWord(qkv::AttentionMode kind);
// "sliding 4096" or "global": the window of a causal layer (core's layerWindowLabel) when its model
// has sliding layers; empty for other layers and models (every layer global, nothing to tell apart).
QString layerWindowText(const qkv::CheckpointConfig& config, const qkv::CheckpointLayer& layer);
QString layerWindowText(const qkv::ModelOverview& overview, qkv::Index layer);
// "3 · self": the --list-layers index and the kind.
QString layerLabel(const qkv::LayerRun& layer);
QStringList layerLabels(const qkv::ModelOverview& overview);
// "3.2": the head as --ablate and the context menu name it (layer index, head from 1).
QString modelHeadName(const qkv::LayerRun& layer, qkv::Index head);
// "Qwen3, 4 layers × 2 heads": the model as config.json names it (core's modelDisplayName).
QString modelShapeLine(const qkv::ModelOverview& overview);

// The token texts a layer's queries and keys are (pretrained_run.hpp).
QStringList layerQueryTexts(const qkv::ModelOverview& overview, qkv::Index layer);
QStringList layerKeyTexts(const qkv::ModelOverview& overview, qkv::Index layer);

// The tooltip of a head: layer name and kind, the head, the four statistics.
QString headToolTip(const qkv::ModelOverview& overview, qkv::Index layer, qkv::Index head);
// The same, with the cell (query, key) of its map: tokens, weight, and the value-weighted norm
// when the overview has them.
QString mapCellToolTip(const qkv::ModelOverview& overview, qkv::Index layer, qkv::Index head, qkv::Index query,
                       qkv::Index key);

}  // namespace qkv::ui
