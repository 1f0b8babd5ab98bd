#include "ui/heads/value_norms_cache.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

namespace qkv::ui {
namespace {

// Two results: the one shown and the one before it (going back and forth between them, or a
// background figure of the new one while the old one is still on screen).
constexpr std::size_t kKeptResults = 2;

struct Entry {
    std::weak_ptr<const qkv::Result> result;
    std::shared_ptr<const qkv::Expected<qkv::ValueNorms>> norms;
};

struct Cache {
    std::mutex mutex;
    std::vector<Entry> entries;  // newest first

    // Under the lock: the entry of `result`, dropping those whose result is gone.
    std::shared_ptr<const qkv::Expected<qkv::ValueNorms>> find(const std::shared_ptr<const qkv::Result>& result)
    {
        std::erase_if(entries, [](const Entry& e) { return e.result.expired(); });
        for (const Entry& e : entries)
            if (e.result.lock() == result) return e.norms;
        return nullptr;
    }
};

Cache& cache()
{
    static Cache instance;
    return instance;
}

}  // namespace

std::shared_ptr<const qkv::Expected<qkv::ValueNorms>> valueNormsOf(const std::shared_ptr<const qkv::Result>& result)
{
    if (!result) return nullptr;
    Cache& c = cache();
    {
        const std::lock_guard lock(c.mutex);
        if (auto norms = c.find(result)) return norms;
    }
    // Outside the lock: a long computation must not hold up another result's lookup. Two
    // threads asking for the same new result both compute it; the numbers are the same.
    auto norms = std::make_shared<const qkv::Expected<qkv::ValueNorms>>(
        qkv::valueWeightedNorms(result->attention, *result->weights));
    const std::lock_guard lock(c.mutex);
    if (auto earlier = c.find(result)) return earlier;
    c.entries.insert(c.entries.begin(), Entry{result, norms});
    if (c.entries.size() > kKeptResults) c.entries.resize(kKeptResults);
    return norms;
}

bool hasValueNorms(const std::shared_ptr<const qkv::Result>& result)
{
    if (!result) return false;
    Cache& c = cache();
    const std::lock_guard lock(c.mutex);
    return c.find(result) != nullptr;
}

double valueNormsMultiplyAdds(const qkv::Result& result)
{
    const qkv::AttentionResult& a = result.attention;
    const double nq = static_cast<double>(a.queryCount()), nk = static_cast<double>(a.keyCount());
    const double h = static_cast<double>(a.headCount());
    const double heads_d_k = h * static_cast<double>(a.d_v());  // W^O's rows: h d_v
    const double d_model = static_cast<double>(a.output.cols());
    return nk * heads_d_k * d_model + nk * h * h * d_model / 2 + nq * nk * h * h / 2;
}

}  // namespace qkv::ui
