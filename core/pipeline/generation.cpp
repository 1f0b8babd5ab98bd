#include "core/pipeline/generation.hpp"

#include <cmath>
#include <string>

#include "core/common/limits.hpp"
#include "core/text/token_pieces.hpp"

namespace qkv {

Status checkGeneration(const PretrainedModel& model, Index promptLength, const GenerationOptions& options)
{
    const FamilyRecipe& r = model.recipe;
    if (!r.causal() || r.readout != ReadoutKind::CausalLm)
        return Error{std::string("generation continues a causal language model's prompt; this ") +
                     std::string(familyName(r.family)) +
                     (r.encoderDecoder()               ? " model is an encoder-decoder"
                      : r.readout == ReadoutKind::None ? " checkpoint has no readout to predict with"
                                                       : " model reads the whole sentence at once (a masked LM)")};
    if (options.newTokens < 1 || options.newTokens > kMaxGeneratedTokens)
        return Error{"the number of tokens to generate must be 1 to " + std::to_string(kMaxGeneratedTokens) + ", not " +
                     std::to_string(options.newTokens)};
    if (!std::isfinite(options.temperature) || options.temperature < 0.0)
        return Error{"the temperature must be 0 (greedy) or a positive number"};
    const Index total = promptLength + options.newTokens;
    const Index limit = r.positionCount > 0 ? std::min<Index>(r.positionCount, limits::maxModelTokens)
                                            : limits::maxModelTokens;
    if (total > limit)
        return Error{"the prompt has " + std::to_string(promptLength) + " tokens, and " +
                     std::to_string(options.newTokens) + " more would make " + std::to_string(total) +
                     "; this model runs on up to " + std::to_string(limit)};
    return {};
}

Expected<std::int32_t> chooseToken(const LogitsRow& logits, double temperature, SplitMix64& random)
{
    if (temperature == 0.0) {
        Expected<std::vector<TokenProbability>> top = topPredictions(logits, 1);
        if (!top) return Error{top.error()};
        return top->front().id;
    }
    // Checks the logits (finite, not empty) as topPredictions does.
    if (Expected<std::vector<TokenProbability>> checked = topPredictions(logits, 1); !checked) return Error{checked.error()};
    const Index V = logits.size();
    const double top = static_cast<double>(logits.maxCoeff());
    Eigen::VectorXd weights(V);  // exp((z_v - max z) / T): the largest is 1
    for (Index v = 0; v < V; ++v) weights(v) = std::exp((static_cast<double>(logits(v)) - top) / temperature);
    const double target = random.uniform01() * weights.sum();
    double cumulative = 0.0;
    for (Index v = 0; v < V; ++v) {
        cumulative += weights(v);
        if (cumulative > target && weights(v) > 0.0) return static_cast<std::int32_t>(v);
    }
    // Rounding left the target at the sum: the last token that has any weight.
    for (Index v = V - 1; v >= 0; --v)
        if (weights(v) > 0.0) return static_cast<std::int32_t>(v);
    return static_cast<std::int32_t>(0);
}

Expected<Generation> generateTokens(const PretrainedModel& model, const std::vector<std::int32_t>& prompt,
                                    const GenerationOptions& options, const GenerationProgress& progress)
{
    if (Status s = checkGeneration(model, static_cast<Index>(prompt.size()), options); !s) return Error{s.error()};
    Generation generation;
    generation.ids = prompt;
    SplitMix64 random(options.seed);
    RunOptions step = options.run;
    step.logitRows = LogitRows::Chosen;
    for (Index t = 0; t < options.newTokens; ++t) {
        const auto last = static_cast<Index>(generation.ids.size()) - 1;
        step.logitPositions = {last};
        step.previous = generation.lastRun ? generation.lastRun : options.run.previous;
        Expected<ModelRun> ran = runPretrainedModel(model, ModelTokens{generation.ids, {}}, step);
        if (!ran) return Error{ran.error()};
        generation.lastRun = std::make_shared<const ModelRun>(std::move(*ran));
        const LogitsRow logits = generation.lastRun->logits.row(0);
        Expected<std::int32_t> id = chooseToken(logits, options.temperature, random);
        if (!id) return Error{"the logits at position " + std::to_string(last) + ": " + id.error()};
        GeneratedToken token;
        token.position = last + 1;
        token.id = *id;
        token.probability = *tokenProbability(logits, *id);
        if (Expected<std::vector<TokenProbability>> top = topPredictions(logits, std::min(options.alternatives, logits.size())))
            token.top = std::move(*top);
        generation.ids.push_back(*id);
        generation.generated.push_back(token);
        if (progress && !progress(token, *generation.lastRun) && t + 1 < options.newTokens) {
            generation.stopped = true;
            break;
        }
    }
    return generation;
}

ModelSentences withGeneratedTokens(const PretrainedModel& model, ModelSentences sentences,
                                   const std::vector<GeneratedToken>& generated)
{
    const std::vector<std::string> pieces = model.tokenizer ? tokenPieceTable(*model.tokenizer, model.recipe.vocabularySize)
                                                            : std::vector<std::string>();
    std::size_t end = 0;
    for (const SubwordToken& token : sentences.sequence.tokens) end = std::max(end, token.byteEnd);
    for (const GeneratedToken& token : generated) {
        SubwordToken added;
        added.id = token.id;
        if (static_cast<std::size_t>(token.id) < pieces.size()) added.piece = pieces[static_cast<std::size_t>(token.id)];
        added.display = model.tokenizer ? model.tokenizer->displayPiece(added.piece) : std::to_string(token.id);
        if (added.display.empty()) added.display = "#" + std::to_string(token.id);
        added.byteBegin = added.byteEnd = end;
        sentences.sequence.tokens.push_back(std::move(added));
        sentences.tokens.ids.push_back(token.id);
    }
    return sentences;
}

}  // namespace qkv
