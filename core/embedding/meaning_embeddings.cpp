#include "core/embedding/meaning_embeddings.hpp"

#include <cmath>

#include "core/common/random.hpp"
#include "core/embedding/embeddings.hpp"

namespace qkv {

namespace {

// N(0, 1) entries from the stream of (prefix + name, seed), in double (1 x d_model).
VectorD normalStream(std::string_view prefix, std::string_view name, Index d_model, std::uint64_t seed)
{
    std::string key(prefix);
    key += name;
    SplitMix64 stream(hashWithSeed(key, seed));
    VectorD values(d_model);
    for (Index column = 0; column < d_model; ++column) values(column) = stream.normal();
    return values;
}

constexpr std::string_view conceptPrefix = "concept:";
constexpr std::string_view languagePrefix = "language:";

}  // namespace

RowVectorF conceptVector(std::string_view conceptId, Index d_model, std::uint64_t seed)
{
    return normalStream(conceptPrefix, conceptId, d_model, seed).cast<float>().transpose();
}

RowVectorF languageVector(std::string_view languageTag, Index d_model, std::uint64_t seed)
{
    return normalStream(languagePrefix, languageTag, d_model, seed).cast<float>().transpose();
}

MatrixF meaningEmbeddings(const std::vector<Token>& tokens, Index d_model, std::uint64_t seed)
{
    return meaningEmbeddings(tokens, d_model, seed, Lexicon::builtIn());
}

MatrixF meaningEmbeddings(const std::vector<Token>& tokens, Index d_model, std::uint64_t seed, const Lexicon& lexicon)
{
    const std::vector<TokenMeaning> meanings = lexicon.meanings(tokens);
    const double conceptWeight = std::sqrt(1.0 - meaningLanguageWeight * meaningLanguageWeight);

    // Numbers and unknown words: exactly tokenEmbeddings' rows, by construction.
    std::vector<Token> ownWords;
    for (std::size_t row = 0; row < tokens.size(); ++row)
        if (meanings[row].conceptIndex < 0) ownWords.push_back(tokens[row]);
    const MatrixF ownVectors = tokenEmbeddings(ownWords, d_model, seed);  // (unknown count) x d_model

    // One l(L) per language, drawn once.
    std::vector<VectorD> languageParts;
    for (const std::string& tag : lexicon.languages())
        languageParts.push_back(normalStream(languagePrefix, tag, d_model, seed));

    MatrixF embeddings(static_cast<Index>(tokens.size()), d_model);  // n x d_model
    Index nextOwn = 0;
    for (std::size_t row = 0; row < tokens.size(); ++row) {
        const TokenMeaning& meaning = meanings[row];
        const Index r = static_cast<Index>(row);
        if (meaning.conceptIndex < 0) {
            embeddings.row(r) = ownVectors.row(nextOwn++);
            continue;
        }
        VectorD x = conceptWeight * normalStream(conceptPrefix, meaning.key, d_model, seed);
        if (meaning.language >= 0)
            x += meaningLanguageWeight * languageParts[static_cast<std::size_t>(meaning.language)];
        embeddings.row(r) = x.cast<float>().transpose();
    }
    return embeddings;
}

std::vector<std::string> meaningKeys(const std::vector<Token>& tokens)
{
    return meaningKeys(tokens, Lexicon::builtIn());
}

std::vector<std::string> meaningKeys(const std::vector<Token>& tokens, const Lexicon& lexicon)
{
    std::vector<std::string> keys;
    keys.reserve(tokens.size());
    for (TokenMeaning& meaning : lexicon.meanings(tokens)) keys.push_back(std::move(meaning.key));
    return keys;
}

std::vector<bool> outsideLexicon(const std::vector<Token>& tokens)
{
    return outsideLexicon(tokens, Lexicon::builtIn());
}

std::vector<bool> outsideLexicon(const std::vector<Token>& tokens, const Lexicon& lexicon)
{
    std::vector<bool> outside;
    outside.reserve(tokens.size());
    for (const TokenMeaning& meaning : lexicon.meanings(tokens))
        outside.push_back(meaning.kind == MeaningKind::Unknown);
    return outside;
}

}  // namespace qkv
