#pragma once
// A typed sentence cut into tokens once per edit: its words (core/text/tokenizer.hpp) and, when
// the model's own input embeds it, that model's subword tokens. The validation, the estimate of
// the work, the computation and the sentence field all read the same cut; an edit that leaves a
// sentence's text and the model input as they were keeps its cut (core/pipeline/compute_request.hpp).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/common/expected.hpp"
#include "core/config/config.hpp"
#include "core/embedding/model_input.hpp"
#include "core/result/user_inputs.hpp"
#include "core/text/subword_tokens.hpp"
#include "core/text/tokenizer.hpp"

namespace qkv {

struct CutSentence {
    std::string text;
    // tokenize(text); none when the text is over limits::maxSentenceBytes (validation says so).
    std::vector<Token> words;
    // The model input whose tokenizer cut `subwords`, held so that its address names it while
    // the cut lives; null: only words were cut.
    std::shared_ptr<const ModelInput> model;
    // The model's tokens, or why its tokenizer refused the text; present exactly when `model` is.
    std::optional<Expected<SubwordTokenization>> subwords;

    // The model's tokens when it cut them, else null.
    const SubwordTokenization* modelTokens() const;
};

// Cuts `text` into words and, with a model input, into that model's tokens.
std::shared_ptr<const CutSentence> cutSentence(const std::string& text, std::shared_ptr<const ModelInput> model);

// `previous` when it cut the same text with the same model input, else a new cut.
std::shared_ptr<const CutSentence> recutSentence(const std::shared_ptr<const CutSentence>& previous,
                                                 const std::string& text,
                                                 const std::shared_ptr<const ModelInput>& model);

// Both typed sentences; null where none was cut.
struct CutSentences {
    std::shared_ptr<const CutSentence> source;
    std::shared_ptr<const CutSentence> target;
};

// Both sentences of `config` as compute() reads them: words, and the model's tokens while its own
// input is X (Config::embeddings is Model, no trained model). A cut of `previous` is kept when its
// text and model input are the ones asked for.
CutSentences cutSentences(const Config& config, const UserInputs& inputs, const CutSentences& previous = {});

}  // namespace qkv
