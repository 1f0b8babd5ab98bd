#include "core/trainable/model_spec.hpp"

#include <string>

namespace qkv {

std::string ModelSpec::problem() const
{
    const auto number = [](Index value) { return std::to_string(value); };
    if (d_model < 1 || d_model > maxTrainedDModel)
        return "d_model must be between 1 and " + number(maxTrainedDModel) + " (it is " + number(d_model) + ")";
    if (headCount < 1 || headCount > d_model)
        return "the number of heads h must be between 1 and d_model (it is " + number(headCount) + ")";
    if (d_model % headCount != 0)
        return "h = " + number(headCount) + " does not divide d_model = " + number(d_model) +
               ": each head gets d_k = d_model / h columns";
    if (encoderLayers < 0 || decoderLayers < 1 || encoderLayers > maxTrainedLayers ||
        decoderLayers > maxTrainedLayers)
        return "layers must be between 1 and " + number(maxTrainedLayers) + " per stack";
    if (d_ff < 0 || d_ff > 8 * maxTrainedDModel) return "the MLP width d_ff is out of range (" + number(d_ff) + ")";
    if (vocabularySize < 4 || vocabularySize > maxTrainedVocabulary)
        return "the vocabulary must have between 4 and " + number(maxTrainedVocabulary) + " tokens (it has " +
               number(vocabularySize) + ")";
    if (maxPositions < 1 || maxPositions > maxTrainedPositions)
        return "positions must be between 1 and " + number(maxTrainedPositions);
    if (!(normEpsilon > 0.0)) return "the norm's epsilon must be positive";
    return {};
}

}  // namespace qkv
