#include "core/training/sequence_tasks.hpp"

#include <algorithm>
#include <numeric>

namespace qkv {

Index uniformInteger(SplitMix64& random, Index low, Index high)
{
    const auto span = static_cast<double>(high - low + 1);
    return std::min(high, low + static_cast<Index>(random.uniform01() * span));
}

std::int32_t addLetterSymbols(Vocabulary& vocabulary, Index count)
{
    const std::int32_t first = vocabulary.size();
    for (Index i = 0; i < count; ++i) vocabulary.add(std::string(1, static_cast<char>('a' + i)));
    return first;
}

TaskExample sequenceToSequenceExample(std::vector<std::int32_t> source, const std::vector<std::int32_t>& target,
                                      const std::vector<std::int32_t>& targetAlignment)
{
    TaskExample example;
    example.ids.source = std::move(source);
    example.ids.targetInput.reserve(target.size() + 1);
    example.ids.targetInput.push_back(Vocabulary::bos);
    example.ids.targetInput.insert(example.ids.targetInput.end(), target.begin(), target.end());
    example.ids.targetOutput = target;
    example.ids.targetOutput.push_back(Vocabulary::eos);
    example.alignment = targetAlignment;
    example.alignment.push_back(-1);  // <eos> comes from no source word
    return example;
}

TaskExample symbolTaskExample(TaskKind kind, std::int32_t firstSymbol, SplitMix64& random)
{
    const Index n = uniformInteger(random, symbolMinLength, symbolMaxLength);
    std::vector<std::int32_t> source(static_cast<std::size_t>(n));
    for (std::int32_t& id : source)
        id = firstSymbol + static_cast<std::int32_t>(uniformInteger(random, 0, symbolAlphabetSize - 1));

    // order[j]: the source position output word j is read from.
    std::vector<std::int32_t> order(source.size());
    std::iota(order.begin(), order.end(), 0);
    if (kind == TaskKind::Reverse) std::reverse(order.begin(), order.end());
    if (kind == TaskKind::Sort)
        std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
            return source[static_cast<std::size_t>(a)] < source[static_cast<std::size_t>(b)];
        });

    std::vector<std::int32_t> target, alignment;
    for (std::int32_t position : order) {
        const std::int32_t symbol = source[static_cast<std::size_t>(position)];
        target.push_back(symbol);
        // Sorting gathers equal symbols: which of them an output word "comes from" is not
        // defined, so only a symbol that occurs once has a gold source position.
        const bool single = kind != TaskKind::Sort || std::count(source.begin(), source.end(), symbol) == 1;
        alignment.push_back(single ? position : -1);
    }
    return sequenceToSequenceExample(std::move(source), target, alignment);
}

TaskExample inductionExample(std::int32_t firstToken, SplitMix64& random)
{
    const Index period = uniformInteger(random, inductionMinPeriod, inductionMaxPeriod);
    TaskExample example;
    example.period = period;
    std::vector<std::int32_t>& tokens = example.ids.targetInput;  // 2L + 1
    tokens.push_back(Vocabulary::bos);
    for (Index i = 0; i < period; ++i)
        tokens.push_back(firstToken + static_cast<std::int32_t>(uniformInteger(random, 0, inductionAlphabetSize - 1)));
    tokens.insert(tokens.end(), tokens.begin() + 1, tokens.end());

    example.ids.targetOutput.assign(tokens.size(), -1);
    for (Index t = period + 1; t + 1 < static_cast<Index>(tokens.size()); ++t)
        example.ids.targetOutput[static_cast<std::size_t>(t)] = tokens[static_cast<std::size_t>(t + 1)];
    example.alignment.assign(tokens.size(), -1);  // no source: the period says where to look
    return example;
}

}  // namespace qkv
