#pragma once
// The Generate panel's work off the GUI thread: core's generateTokens (generation.hpp) on the
// document's prompt, each token turned at once into what the panel shows of it (GeneratedStep):
// its chip text and its top 5's, its vocabulary piece (for Keep as prompt), and every head's row
// of the position that chose it.
//
// Which row that is: generated token t sits at position p; the run that chose it covers positions
// 0..p-1, so its last row, p - 1, is the attention of the query that predicted the token (the
// token's own row exists only from the next step's run on).
//
// Symbols: L attention layers (model order), h heads, p the token's position.

#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/common/matrix.hpp"
#include "core/pipeline/generation.hpp"
#include "core/pipeline/model_overview.hpp"

namespace qkv::ui {

// What a generation continues: the document's sentences (a causal LM reads the target) for the
// model behind the layer shown, and the overview of them when there is one: its run, when its
// heads off are the ones now, is the generation's first previous run (the prompt is not run again).
struct GenerationPrompt {
    std::shared_ptr<const qkv::PretrainedModel> model;
    std::string source, target;
    std::shared_ptr<const qkv::ModelOverview> overview;
};

// One generated token as the panel shows it.
struct GeneratedStep {
    qkv::GeneratedToken token;
    std::string piece;               // the vocabulary's entry, which decodePieces puts back into text
    QString text;                    // as a chip shows it
    QStringList alternatives;        // the chip texts of token.top, in its order
    std::vector<qkv::MatrixF> rows;  // L entries, h x p: head i's row p - 1 (choosingRows)
};

// How a generation ended: `problem` says why it could not run (empty when it ran).
struct GenerationEnd {
    QString problem;
    bool stopped = false;  // `step` asked to stop before the tokens asked for
};

// Cuts the prompt, calls `started` with its chip texts, then generates, calling `step` with each
// token (returning false stops after it). Errors, in words for the panel: the prompt the
// tokenizer refuses, checkGeneration's refusals, a run's error, not enough memory.
GenerationEnd generateSteps(const GenerationPrompt& prompt, const qkv::GenerationOptions& options,
                            const std::function<void(QStringList)>& started,
                            const std::function<bool(GeneratedStep)>& step);

// Every layer's row `query` of `run`, each h x (query + 1) (0 x 0 where the run holds no maps).
std::vector<qkv::MatrixF> choosingRows(const qkv::ModelRun& run, qkv::Index query);

// Core's message ("the prompt has 6 tokens, …", written to follow "--generate: ") as a sentence.
QString messageSentence(const std::string& message);

}  // namespace qkv::ui
