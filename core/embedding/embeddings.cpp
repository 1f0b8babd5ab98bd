#include "core/embedding/embeddings.hpp"

#include <cmath>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/common/parallelism.hpp"
#include "core/common/random.hpp"
#include "core/embedding/meaning_embeddings.hpp"

namespace qkv {

MatrixF tokenEmbeddings(const std::vector<Token>& tokens, Index d_model, std::uint64_t seed)
{
    // The stream depends only on (seed, lower-cased text): "The" and "the" share a vector, in the
    // source and in the target alike. A word's vector is drawn once and copied to its other rows;
    // the first rows of distinct words are drawn side by side (each from its own stream).
    const auto n = static_cast<Index>(tokens.size());
    std::vector<Index> firstRow(tokens.size());  // the row each token copies (itself when first)
    std::vector<Index> drawn;                    // rows whose vectors are drawn
    std::vector<std::uint64_t> streams;          // and their streams' seeds
    std::unordered_map<std::string, Index> seen;
    for (Index row = 0; row < n; ++row) {
        std::string text = lowerCase(tokens[static_cast<std::size_t>(row)].text);
        const std::uint64_t stream = hashWithSeed(text, seed);
        const auto [at, added] = seen.emplace(std::move(text), row);
        firstRow[static_cast<std::size_t>(row)] = at->second;
        if (added) {
            drawn.push_back(row);
            streams.push_back(stream);
        }
    }
    MatrixF embeddings(n, d_model);  // n x d_model
    const auto count = static_cast<Index>(drawn.size());
    // About 40 operations a draw (a logarithm, a square root, a sine and a cosine a pair).
    const int threads = threadsFor(40.0 * static_cast<double>(count) * static_cast<double>(d_model));
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
    for (Index i = 0; i < count; ++i) {
        const Index row = drawn[static_cast<std::size_t>(i)];
        SplitMix64 stream(streams[static_cast<std::size_t>(i)]);
        for (Index column = 0; column < d_model; ++column) embeddings(row, column) = static_cast<float>(stream.normal());
    }
    for (Index row = 0; row < n; ++row)
        if (const Index from = firstRow[static_cast<std::size_t>(row)]; from != row)
            embeddings.row(row) = embeddings.row(from);
    return embeddings;
}

namespace {

// Paper section 3.5; column 2i holds the sine and 2i+1 the cosine of the same frequency.
MatrixF sinusoidTable(Index n, Index d_model)
{
    MatrixF encoding(n, d_model);  // n x d_model
    // A sine or cosine each (~20 operations); the columns are independent.
    const int threads = threadsFor(20.0 * static_cast<double>(n) * static_cast<double>(d_model));
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
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

// The largest table kept between calls, in floats (16 MiB: 4,096 positions at d_model 1,024).
constexpr Index kKeptSinusoidFloats = Index{1} << 22;

}  // namespace

MatrixF positionalEncoding(Index n, Index d_model)
{
    // A row depends on its position and d_model only, so the last d_model's table is kept and a
    // shorter sentence reads its first rows: a seed change or a weight edit recomputes the
    // attention, not 400,000 sines and cosines (512 tokens at d_model 768, ~3 ms on two cores).
    static std::mutex guard;
    static MatrixF kept;
    {
        const std::lock_guard<std::mutex> lock(guard);
        if (kept.cols() == d_model && kept.rows() >= n) return kept.topRows(n);
    }
    MatrixF table = sinusoidTable(n, d_model);
    if (table.size() <= kKeptSinusoidFloats) {
        const std::lock_guard<std::mutex> lock(guard);
        if (kept.cols() != d_model || kept.rows() < n) kept = table;
    }
    return table;
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
