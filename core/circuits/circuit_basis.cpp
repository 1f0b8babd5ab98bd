#include "core/circuits/circuit_parts.hpp"
#include "core/circuits/head_circuits.hpp"
#include "core/circuits/vocabulary_products.hpp"

#include <unordered_set>

namespace qkv {

std::string noCircuitsReason(const PretrainedModel& model)
{
    if (model.recipe.encoderDecoder())
        return "an encoder-decoder reads two sequences (its cross-attention's queries and keys come from different "
               "stacks), and its decoder's tokens are not the encoder's: circuits are drawn for decoder-only language "
               "models";
    if (!model.hasReadout())
        return "the model has no readout (its hidden states only, as BERT's or GPT-2's bare model): no W_U to read a "
               "head's output into";
    if (model.recipe.readout == ReadoutKind::MaskedLm)
        return "a masked language model's readout passes a dense layer, an activation and a norm before the token "
               "table: W_U is not the direct path from a head's output to the logits";
    const MatrixF& tokens = circuits::tokenTable(model);
    if (tokens.rows() == 0 || tokens.cols() == 0) return "the model has no token embedding table";
    const MatrixF& readout = circuits::readoutTable(model);
    if (readout.rows() != tokens.rows() || readout.cols() != tokens.cols())
        return "the readout (" + std::to_string(readout.rows()) + " x " + std::to_string(readout.cols()) +
               ") and the token table (" + std::to_string(tokens.rows()) + " x " + std::to_string(tokens.cols()) +
               ") differ in shape";
    return {};
}

Expected<CircuitBasis> circuitBasis(const PretrainedModel& model, const std::atomic<bool>* stop)
{
    if (std::string reason = noCircuitsReason(model); !reason.empty()) return Error{std::move(reason)};
    const MatrixF& embedding = circuits::tokenTable(model);  // W_E, V x d
    const MatrixF& readout = circuits::readoutTable(model);  // W_U^T, V x d
    // W_U W_E = (W_U^T)^T W_E: a sum over the vocabulary; tied, the Gram matrix W_E^T W_E.
    Expected<MatrixF> product = circuits::vocabularyGram(readout, embedding, circuits::readoutTied(model), stop);
    if (!product) return Error{product.error()};
    return CircuitBasis{std::move(*product)};
}

std::vector<std::int32_t> distinctTokenIds(const std::vector<std::int32_t>& promptIds)
{
    std::vector<std::int32_t> distinct;
    std::unordered_set<std::int32_t> seen;
    for (const std::int32_t id : promptIds)
        if (seen.insert(id).second) distinct.push_back(id);
    return distinct;
}

}  // namespace qkv
