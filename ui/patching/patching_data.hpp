#pragma once
// What the Patching and Logit lens pages read from core (core/pipeline/patching.hpp,
// logit_lens.hpp), in the words they show: the two prompts' tokens and which differ, the grids
// of recovered fractions, the logit lens's top tokens, and the figures' data. Every number comes
// from core; this file only picks and names.
//
// Symbols: L layers (model order), h heads of a layer, n tokens, A the answer, B the wrong token,
// r a recovered fraction (1: the whole clean answer).

#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/common/expected.hpp"
#include "core/pipeline/logit_lens.hpp"
#include "core/pipeline/model_overview.hpp"
#include "core/pipeline/patching.hpp"
#include "ui/patching/patch_grid_figure.hpp"

namespace qkv::ui {

// The clean prompt (the document's sentence the model reads, as the overview ran it) beside
// the corrupted one, both whole runs, ready for the patches.
struct PatchingPrompts {
    std::shared_ptr<const qkv::ModelOverview> overview;  // the clean prompt's
    std::shared_ptr<const qkv::PretrainedModel> model;
    QString corruptText;
    QStringList cleanTokens, corruptTokens;  // chip texts ("·e"), position by position
    std::vector<bool> differs;               // n: the tokens that differ
    qkv::PatchingRuns runs;  // as core patches them: no maps, no logits
    // Both prompts run as the tab runs a sentence (maps and logits kept): the clean one is the
    // overview's run with every head on; they give the default A and B and the heads' maps.
    std::shared_ptr<const qkv::ModelRun> cleanWhole, corruptWhole;
    std::int32_t cleanTop = -1, corruptTop = -1;  // each run's top-1 at the last position
};

// Cuts `corruptText` with the model's tokenizer and runs both prompts (core's refusals: not a
// causal LM, no readout, different numbers of tokens). Off the GUI thread.
qkv::Expected<PatchingPrompts> patchingPrompts(std::shared_ptr<const qkv::ModelOverview> overview,
                                               const QString& corruptText);

// The text that cuts into token `id` (the answer box's default): the tokenizer's decoding of it.
QString tokenText(const qkv::PretrainedModel& model, std::int32_t id);
// A token's chip text ("·e").
QString tokenChip(const qkv::PretrainedModel& model, std::int32_t id);

// The grids as figures draw them; `grids` may hold fewer layers than the model (a stopped run).
PatchGridData headsGridData(const PatchingPrompts& prompts, const qkv::PatchingGrids& grids);
PatchGridData residualGridData(const PatchingPrompts& prompts, const qkv::PatchingGrids& grids);

// The logit lens of the clean prompt: top 5 per position and layer, and the answer's probability
// at the last position after each layer.
struct LogitLensShown {
    std::shared_ptr<const qkv::ModelOverview> overview;
    std::vector<qkv::LogitLensLayer> layers;  // L, top 5 at every position
    std::int32_t answer = -1;
    std::vector<double> answerProbability;  // L: at the last position
};
// Off the GUI thread. `answer` -1: the run's top-1 at the last position.
qkv::Expected<LogitLensShown> logitLensShown(std::shared_ptr<const qkv::ModelOverview> overview, std::int32_t answer);
// Positions x layers: each cell's top-1 probability, its token as text.
PatchGridData logitLensGridData(const LogitLensShown& lens);
// "·e 0.83, ·f 0.10, …": the top 5 of a cell.
QString topFiveText(const qkv::PretrainedModel& model, const qkv::PositionPredictions& position);

// The sentences the guide and the screen reader say: the heads carrying the most of the answer,
// and where in the residual stream it enters and reaches the last position.
QString headsSentence(const PatchingPrompts& prompts, const qkv::PatchingGrids& grids);
QString residualSentence(const PatchingPrompts& prompts, const qkv::PatchingGrids& grids);

// What the page last showed, for the figures (`qkv-studio figure` has no corrupted prompt: the
// figures say so). Set on the GUI thread.
struct PatchingShown {
    std::shared_ptr<const PatchingPrompts> prompts;
    std::shared_ptr<const qkv::PatchingGrids> grids;
    std::shared_ptr<const LogitLensShown> lens;
};
PatchingShown shownPatching();
void setShownPatching(PatchingShown shown);

}  // namespace qkv::ui
