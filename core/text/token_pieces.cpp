#include "core/text/token_pieces.hpp"

#include <cstdint>

namespace qkv {

std::vector<std::string> tokenPieceTable(const SubwordTokenizer& tokenizer, Index rows)
{
    std::vector<std::string> pieces(static_cast<std::size_t>(std::max<Index>(rows, 0)));
    const auto put = [&](std::int32_t id, const std::string& piece) {
        if (id >= 0 && static_cast<std::size_t>(id) < pieces.size()) pieces[static_cast<std::size_t>(id)] = piece;
    };
    if (const FastTokenizer* fast = tokenizer.fast()) {
        for (std::size_t id = 0; id < pieces.size(); ++id) pieces[id] = fast->piece(static_cast<std::int32_t>(id));
    } else if (const WordPieceTokenizer* wordPiece = tokenizer.wordPiece()) {
        for (std::size_t id = 0; id < wordPiece->vocab.tokens.size(); ++id)
            put(static_cast<std::int32_t>(id), wordPiece->vocab.tokens[id]);
    } else if (const ByteLevelBpeTokenizer* bpe = tokenizer.byteLevelBpe()) {
        for (const auto& [piece, id] : bpe->bpe.ids) put(id, piece);
    } else if (const SentencePieceTokenizer* spm = tokenizer.sentencePiece()) {
        if (spm->vocab) {  // Marian: vocab.json's ids
            for (const auto& [piece, id] : spm->vocab->ids) put(id, piece);
        } else {
            for (std::size_t id = 0; id < spm->model.pieceCount() && id < pieces.size(); ++id)
                put(static_cast<std::int32_t>(id), spm->model.piece(static_cast<std::int32_t>(id)));
        }
    }
    return pieces;
}

}  // namespace qkv
