// Robustness of the readers: every truncation of valid files, and a deterministic mutation
// fuzz (fixed seed, bounded in time) of valid files. The readers must never crash, never read
// out of bounds (run this suite under -fsanitize=address,undefined to check), and give either
// a value or a non-empty message that starts with the file's name.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <random>

#include <gtest/gtest.h>

#include "core/io/npy.hpp"
#include "core/io/safetensors.hpp"
#include "core/io/weights_file.hpp"
#include "core/io/io_test_support.hpp"

namespace qkv {
namespace {

using testing::fileBytes;
using testing::fixturePath;

constexpr std::string_view kSource = "fuzzed";

bool startsWithSource(const std::string& message)
{
    return message.size() > kSource.size() + 2 && message.rfind(std::string(kSource) + ": ", 0) == 0;
}

// Runs every reader that accepts these bytes; returns true when the bytes were accepted.
bool exerciseReaders(const std::vector<std::byte>& bytes, bool safetensors)
{
    if (!safetensors) {
        auto array = parseNpy(bytes, kSource);
        auto arrayD = parseNpyDouble(bytes, kSource);
        // Float64 values beyond float's range are fine as double, so only the messages are
        // compared in kind.
        if (!arrayD.ok()) {
            EXPECT_TRUE(startsWithSource(arrayD.error())) << arrayD.error();
        }
        if (!array.ok()) {
            EXPECT_TRUE(startsWithSource(array.error())) << array.error();
            return false;
        }
        EXPECT_TRUE(array->values.allFinite());
        EXPECT_TRUE(array->shape.size() == 1 || array->shape.size() == 2);
        return true;
    }
    auto file = parseSafetensors(bytes, kSource);
    if (!file.ok()) {
        EXPECT_TRUE(startsWithSource(file.error())) << file.error();
        return false;
    }
    for (const Tensor& tensor : file->tensors) {
        EXPECT_EQ(tensor.data.size(), tensor.elementCount() * tensorDtypeSize(tensor.dtype));
        (void)tensor.toDoubles();
    }
    auto weights = attentionWeightsFromSafetensors(*file, kSource);
    if (weights.ok()) {
        const Index d = weights->d_model();
        EXPECT_GE(d, 1);
        EXPECT_EQ(weights->outputProjection.rows(), d);
        EXPECT_EQ(weights->outputProjection.cols(), d);
        EXPECT_TRUE(weights->queryProjection.allFinite());
    } else {
        EXPECT_TRUE(startsWithSource(weights.error())) << weights.error();
    }
    return true;
}

struct Sample {
    const char* name;
    bool safetensors;
};

const Sample kSamples[] = {
    {"f32_2x3.npy", false},          {"f64_vec5.npy", false},
    {"f32_v2.npy", false},           {"weights_ours.safetensors", true},
    {"mha_pytorch.safetensors", true}, {"half_types.safetensors", true},
};

TEST(io_robustness, EveryTruncationOfAValidFileIsRefused)
{
    for (const Sample& sample : kSamples) {
        const auto full = fileBytes(fixturePath(sample.name));
        ASSERT_FALSE(full.empty()) << sample.name;
        ASSERT_TRUE(exerciseReaders(full, sample.safetensors)) << sample.name;
        for (std::size_t length = 0; length < full.size(); ++length) {
            // A copy of exactly `length` bytes, so a read past the end is a sanitizer error.
            const std::vector<std::byte> cut(full.begin(), full.begin() + static_cast<long>(length));
            EXPECT_FALSE(exerciseReaders(cut, sample.safetensors))
                << sample.name << " truncated to " << length << " bytes was accepted";
        }
    }
}

TEST(io_robustness, TruncatedFilesOnDiskAreRefusedByThePathReaders)
{
    testing::ScratchDir dir;
    const auto npy = fileBytes(fixturePath("f32_2x3.npy"));
    const auto st = fileBytes(fixturePath("weights_ours.safetensors"));
    for (std::size_t length : {std::size_t{0}, std::size_t{7}, std::size_t{9}, npy.size() - 1}) {
        testing::writeBytes(dir.file("t.npy"), {npy.begin(), npy.begin() + static_cast<long>(length)});
        auto m = readNpyMatrix(dir.file("t.npy"));
        ASSERT_FALSE(m.ok());
        EXPECT_EQ(m.error().rfind(dir.file("t.npy") + ": ", 0), 0u) << m.error();
    }
    for (std::size_t length : {std::size_t{0}, std::size_t{8}, std::size_t{100}, st.size() - 1}) {
        testing::writeBytes(dir.file("t.safetensors"), {st.begin(), st.begin() + static_cast<long>(length)});
        auto w = loadAttentionWeights(dir.file("t.safetensors"));
        ASSERT_FALSE(w.ok());
        EXPECT_EQ(w.error().rfind(dir.file("t.safetensors") + ": ", 0), 0u) << w.error();
    }
}

// One random edit of a valid file. Digit edits inside the header reach the checks behind the
// parsers (shapes, offsets), which random bytes rarely do.
std::vector<std::byte> mutate(std::vector<std::byte> bytes, std::mt19937_64& rng)
{
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % std::max<std::size_t>(n, 1)); };
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
        switch (rng() % 8) {
        case 0:  // flip one bit
            if (!bytes.empty()) bytes[pick(bytes.size())] ^= static_cast<std::byte>(1u << (rng() % 8));
            break;
        case 1:  // random byte
            if (!bytes.empty()) bytes[pick(bytes.size())] = static_cast<std::byte>(rng());
            break;
        case 2:  // truncate
            bytes.resize(pick(bytes.size() + 1));
            break;
        case 3: {  // insert a few bytes
            const std::size_t at = pick(bytes.size() + 1);
            const std::size_t n = 1 + pick(8);
            for (std::size_t i = 0; i < n; ++i)
                bytes.insert(bytes.begin() + static_cast<long>(at), static_cast<std::byte>(rng()));
            break;
        }
        case 4: {  // erase a few bytes
            if (bytes.empty()) break;
            const std::size_t at = pick(bytes.size());
            const std::size_t n = std::min(bytes.size() - at, 1 + pick(8));
            bytes.erase(bytes.begin() + static_cast<long>(at), bytes.begin() + static_cast<long>(at + n));
            break;
        }
        case 5: {  // a digit becomes another digit (or a sign / dot / big number)
            std::vector<std::size_t> digits;
            for (std::size_t i = 0; i < bytes.size(); ++i) {
                const auto c = std::to_integer<char>(bytes[i]);
                if (c >= '0' && c <= '9') digits.push_back(i);
            }
            if (digits.empty()) break;
            const std::size_t at = digits[pick(digits.size())];
            static const char* replacements[] = {"0", "1", "7", "9", "-", ".", "99999999999999999999",
                                                 "4294967296", "18446744073709551615", "e9"};
            const std::string r = replacements[pick(std::size(replacements))];
            bytes.erase(bytes.begin() + static_cast<long>(at));
            for (std::size_t i = 0; i < r.size(); ++i)
                bytes.insert(bytes.begin() + static_cast<long>(at + i), static_cast<std::byte>(r[i]));
            break;
        }
        case 6:  // interesting byte values
            if (!bytes.empty()) {
                static const unsigned char values[] = {0x00, 0xff, 0x7f, 0x80, '"', '{', '[', ',', 0x7c};
                bytes[pick(bytes.size())] = static_cast<std::byte>(values[pick(std::size(values))]);
            }
            break;
        default:  // the header length bytes (both formats keep it in bytes 0..11)
            if (bytes.size() > 12) bytes[pick(12)] = static_cast<std::byte>(rng());
            break;
        }
    }
    return bytes;
}

TEST(io_robustness, DeterministicMutationFuzz)
{
    std::mt19937_64 rng(0x9e3779b97f4a7c15ull);
    std::vector<std::pair<std::vector<std::byte>, bool>> seeds;
    for (const Sample& sample : kSamples) seeds.emplace_back(fileBytes(fixturePath(sample.name)), sample.safetensors);

    constexpr int kMinCases = 2000, kMaxCases = 20000;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    int cases = 0, accepted = 0;
    for (; cases < kMaxCases; ++cases) {
        // At least kMinCases whatever the machine's load, then while the time budget lasts.
        if (cases >= kMinCases && cases % 256 == 0 && std::chrono::steady_clock::now() > deadline) break;
        const auto& [seed, safetensors] = seeds[static_cast<std::size_t>(cases) % seeds.size()];
        const auto bytes = mutate(seed, rng);
        if (exerciseReaders(bytes, safetensors)) ++accepted;
        if (::testing::Test::HasFailure()) {
            ADD_FAILURE() << "mutation case " << cases << " failed";
            break;
        }
    }
    std::cout << "[ fuzz     ] " << cases << " mutated files, " << accepted << " accepted, "
              << cases - accepted << " refused with a message\n";
    EXPECT_GE(cases, kMinCases) << "the loop stopped early";
    EXPECT_GT(cases - accepted, cases / 2) << "most mutations should be refused";
}

}  // namespace
}  // namespace qkv
