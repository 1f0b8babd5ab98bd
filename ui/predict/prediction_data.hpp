#pragma once
// What the Predictions tab reads from a ModelOverview (core/pipeline/model_overview.hpp), in the
// words it shows: the tokens the readout predicts, the positions it predicts at, the top tokens
// with every head on beside those with the user's heads switched off, and the heads switched off
// as --ablate writes them. Every number comes from core (predictions.hpp); this file only picks
// and names.
//
// Symbols: V the vocabulary, p a position of the sequence the readout reads (an encoder-decoder's
// decoder), t a token id; "before" = every head on (the baseline run), "after" = with the heads
// the user switched off (the overview's run).

#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <set>
#include <vector>

#include "core/common/expected.hpp"
#include "core/pipeline/model_overview.hpp"

namespace qkv::ui {

// Token id -> the text a token chip shows for it ("·cat" for GPT-2's "Ġcat", "##ing", "[MASK]"),
// for the tokenizer the readout predicts with (an encoder-decoder's target tokenizer).
class PredictedTokenNames {
public:
    PredictedTokenNames() = default;
    explicit PredictedTokenNames(const qkv::PretrainedModel& model);
    // "id 123" for an id the tokenizer does not list.
    QString of(std::int32_t id) const;

private:
    std::vector<QString> names_;
};

// The model as people name it: "Org/Name" for a snapshot of the Hugging Face cache, else its
// folder ("demo-model"), or the file's name without ".safetensors" for a lone file.
QString modelName(const qkv::PretrainedModel& model);
// The typed sentence the readout reads: a causal LM's or an encoder-decoder's target, a masked
// LM's source.
QString readoutSentence(const qkv::PretrainedModel& model, const QString& source, const QString& target);

// The tokens of the sequence the readout reads (chip texts), position by position.
QStringList readoutTokens(const qkv::ModelOverview& overview);
// The tokens the rollout's rows and columns are: the sequence the first stack reads.
QStringList rolloutTokens(const qkv::ModelOverview& overview);

// How a prediction position is named: a causal LM predicts the token after p ("after «d»
// (position 0)"), a masked LM fills p ("«[MASK]» (position 1)").
QString predictionPositionName(const qkv::ModelOverview& overview, qkv::Index position);
// The positions the overview predicts at, in order (those of baselinePredictions).
std::vector<qkv::Index> overviewPredictionPositions(const qkv::ModelOverview& overview);
// The position a figure or the tab shows when none is chosen: a causal LM's last (the next token
// after the sentence), a masked LM's first [MASK]; -1 when there is none.
qkv::Index defaultPredictionPosition(const qkv::ModelOverview& overview);
// The prediction position the selected query row of the shown layer is, or -1: the row of a
// layer whose queries are the readout's sequence (not an encoder-decoder's encoder), when the
// model predicts there.
qkv::Index queryRowPosition(const qkv::ModelOverview& overview, qkv::Index shownLayer, qkv::Index queryRow);

// One token of the before/after comparison.
struct PredictionRow {
    std::int32_t id = 0;
    QString token;
    double before = 0.0;  // p_t with every head on
    double after = 0.0;   // p_t with the switched-off heads off
    double change() const { return after - before; }
};

// The top 5 with every head on and the top 5 with the heads off, one row per token of either
// list, most likely (before, then after) first.
struct PredictionComparison {
    qkv::Index position = -1;
    QString positionName;
    bool masked = false;  // a masked LM's fill (else a causal LM's next token)
    std::vector<PredictionRow> rows;
    std::size_t headsOff = 0;
    QString headsOffText;  // "3.2, 0.1"
};

// Errors: no readout, a position the overview does not predict at, logits that are not finite.
qkv::Expected<PredictionComparison> comparePredictions(const qkv::ModelOverview& overview, qkv::Index position,
                                                       const PredictedTokenNames& names);

// The heads as --ablate reads and writes them: "3.2, 0.1" (layer as --list-layers numbers it,
// head from 1), in model order.
QString headsOffText(const qkv::PretrainedModel& model, const std::set<qkv::ModelHead>& heads);
// One head: "3.2".
QString headText(const qkv::PretrainedModel& model, const qkv::ModelHead& head);

// The --list-layers index and name of a layer in model order: "1 · bert.encoder.layer.1.attention".
QString layerLabel(const qkv::ModelOverview& overview, qkv::Index modelIndex);

// A probability as a percentage with one decimal ("23.1 %"), and a change in percentage points
// ("−12.3 pp", "+0.4 pp").
QString probabilityText(double probability);
QString pointsText(double change);
// The same number without the unit ("−12.3"), where an axis title names it.
QString pointsNumber(double change);

}  // namespace qkv::ui
