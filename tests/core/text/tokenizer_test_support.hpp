#pragma once
// Helpers for the subword tokenizer tests: fixture paths under tests/data/tokenizers, whole-file
// reads, and the fixture cases written by tests/data/tokenizers/make_fixtures.py.

#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include "support/test_paths.hpp"

namespace qkv::testing {

inline std::string tokenizerFixture(const std::string& name)
{
    return std::string(qkv::testDataDir()) + "/tokenizers/" + name;
}

inline std::string readText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in) << "missing fixture " << path;
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline nlohmann::json tokenizerCases()
{
    const std::string text = readText(tokenizerFixture("cases.json"));
    nlohmann::json cases = nlohmann::json::parse(text, nullptr, false);
    EXPECT_FALSE(cases.is_discarded()) << "cases.json is not JSON";
    if (cases.is_discarded()) return nlohmann::json::object({{"cases", nlohmann::json::array()}});
    return cases;
}

}  // namespace qkv::testing
