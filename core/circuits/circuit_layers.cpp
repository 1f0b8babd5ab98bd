#include "core/circuits/circuit_parts.hpp"

#include "core/text/token_pieces.hpp"

namespace qkv::circuits {

const MatrixF& tokenTable(const PretrainedModel& model) { return model.singleStack().embeddings.tokens; }

const MatrixF& readoutTable(const PretrainedModel& model) { return model.readoutMatrix(); }

bool readoutTied(const PretrainedModel& model) { return &readoutTable(model) == &tokenTable(model); }

bool selfAttentionLayer(const PretrainedModel& model, Index modelIndex)
{
    return modelIndex >= 0 && modelIndex < model.layerCount() &&
           model.layersInModelOrder[static_cast<std::size_t>(modelIndex)].kind != AttentionMode::Cross;
}

Expected<std::shared_ptr<const AttentionWeights>> layerWeights(const PretrainedModel& model, Index modelIndex)
{
    if (modelIndex < 0 || modelIndex >= model.layerCount())
        return Error{"no attention layer " + std::to_string(modelIndex) + " in the model (it has " +
                     std::to_string(model.layerCount()) + ")"};
    for (const StackWeights* stack : {&model.encoder, &model.decoder})
        for (const BlockWeights& block : stack->blocks) {
            const bool self = block.selfAttention.modelIndex == modelIndex;
            const bool cross = block.crossAttention && block.crossAttention->modelIndex == modelIndex;
            if (!self && !cross) continue;
            const AttentionSublayerWeights& sublayer = self ? block.selfAttention : *block.crossAttention;
            if (model.residency != WeightResidency::OneBlockAtATime)  // the model's own, not owned here
                return std::shared_ptr<const AttentionWeights>(std::shared_ptr<const AttentionWeights>(),
                                                               &sublayer.attention);
            Expected<BlockWeights> read = blockWeights(model.checkpoint, model.recipe, block.stack, block.block);
            if (!read) return Error{read.error()};
            return std::make_shared<const AttentionWeights>(
                std::move(self ? read->selfAttention.attention : read->crossAttention->attention));
        }
    return Error{"no attention layer " + std::to_string(modelIndex) + " in the model"};
}

Expected<HeadGrouping> checkedHead(const PretrainedModel& model, const AttentionWeights& weights,
                                   const CircuitHead& head)
{
    if (head.layer < 0 || head.layer >= model.layerCount())
        return Error{"no attention layer " + std::to_string(head.layer) + " in the model (it has " +
                     std::to_string(model.layerCount()) + ")"};
    const CheckpointLayer& layer = model.layersInModelOrder[static_cast<std::size_t>(head.layer)];
    if (!selfAttentionLayer(model, head.layer))
        return Error{layer.name +
                     " is cross-attention: its queries and keys read two sequences, not one vocabulary's "
                     "direct path"};
    if (head.head < 0 || head.head >= layer.headCount)
        return Error{layer.name + " has no head " + std::to_string(head.head + 1) + " (it has " +
                     std::to_string(layer.headCount) + ")"};
    if (const std::string problem = weights.shapeProblem(layer.headCount); !problem.empty())
        return Error{layer.name + ": " + problem};
    return weights.grouping(layer.headCount);
}

std::vector<std::string> tokenPieces(const PretrainedModel& model)
{
    // A tokenizer.json answers one id at a time: no table of the whole vocabulary (151,936
    // strings for Qwen3) for the K x m ids a call shows.
    if (!model.tokenizer || model.tokenizer->fast()) return {};
    return tokenPieceTable(*model.tokenizer, tokenTable(model).rows());
}

std::string tokenText(const PretrainedModel& model, const std::vector<std::string>& pieces, std::int32_t id)
{
    if (!model.tokenizer || id < 0) return {};
    std::string piece;
    if (const FastTokenizer* fast = model.tokenizer->fast())
        piece = fast->piece(id);
    else if (static_cast<std::size_t>(id) < pieces.size())
        piece = pieces[static_cast<std::size_t>(id)];
    return piece.empty() ? piece : model.tokenizer->displayPiece(piece);
}

}  // namespace qkv::circuits
