#include "core/embedding/embeddings.hpp"

#include <cmath>

#include "core/common/random.hpp"
#include "core/embedding/meaning_embeddings.hpp"

namespace qkv {

MatrixF tokenEmbeddings(const std::vector<Token>& tokens, Index d_model, std::uint64_t seed)
{
    MatrixF embeddings(static_cast<Index>(tokens.size()), d_model);  // n x d_model
    for (Index row = 0; row < embeddings.rows(); ++row) {
        // The stream depends only on (seed, lower-cased text): "The" and "the" share a vector,
        // in the source and in the target alike.
        SplitMix64 stream(hashWithSeed(lowerCase(tokens[static_cast<std::size_t>(row)].text), seed));
        for (Index column = 0; column < d_model; ++column)
            embeddings(row, column) = static_cast<float>(stream.normal());
    }
    return embeddings;
}

MatrixF positionalEncoding(Index n, Index d_model)
{
    // Paper section 3.5; column 2i holds the sine and 2i+1 the cosine of the same frequency.
    MatrixF encoding(n, d_model);  // n x d_model
    for (Index column = 0; column < d_model; ++column) {
        const Index pairStart = column - (column % 2);  // 2i
        const double frequency =
            1.0 / std::pow(10000.0, static_cast<double>(pairStart) / static_cast<double>(d_model));
        for (Index position = 0; position < n; ++position) {
            const double angle = static_cast<double>(position) * frequency;
            encoding(position, column) = static_cast<float>(column % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    }
    return encoding;
}

MatrixF embedSentence(const std::vector<Token>& tokens, const EmbeddingOptions& options)
{
    MatrixF embeddings = options.byMeaning ? meaningEmbeddings(tokens, options.d_model, options.seed)
                                           : tokenEmbeddings(tokens, options.d_model, options.seed);
    if (options.tokenScale != 1.0f) embeddings *= options.tokenScale;
    if (options.addPositional) embeddings += positionalEncoding(embeddings.rows(), options.d_model);
    return embeddings;
}

}  // namespace qkv
