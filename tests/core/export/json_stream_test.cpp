// The export's JSON writer and its checks before any work, tested on their own: every float
// reads back to the same bits, a string with quotes, control characters or malformed UTF-8
// stays one valid JSON string, and a target that is not the format's (a folder for JSON, a
// folder holding other files for npy) is refused before anything is written.

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/export/json_stream.hpp"
#include "core/export/result_export.hpp"
#include "core/io/atomic_file.hpp"
#include "support/test_folder.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

std::string readText(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `body` (an escaped string's inside) parsed back as the JSON string "body".
std::string parsedString(const std::string& body)
{
    std::string text;
    text.reserve(body.size() + 2);
    text += '"';
    text += body;
    text += '"';
    return nlohmann::json::parse(text).get<std::string>();
}

// Writes `write`'s values through a JsonStream into a file and parses it back.
template <class Write>
nlohmann::json writtenAndParsed(const fs::path& path, Write write)
{
    AtomicFile file;
    EXPECT_TRUE(file.open(path.string()));
    JsonStream json(file);
    write(json);
    EXPECT_TRUE(file.commit());
    return nlohmann::json::parse(readText(path));
}

TEST(JsonStream, EveryFloatReadsBackToTheSameBits)
{
    const TestFolder folder("json_stream");
    const float floats[] = {0.1f, 1.0f / 3.0f, -2.5e-7f, std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::max(), 16777217.0f};
    const double doubles[] = {0.1, 1.0 / 3.0, -2.5e-300, std::numeric_limits<double>::denorm_min(),
                              std::numeric_limits<double>::max(), 9007199254740993.0};
    const nlohmann::json document = writtenAndParsed(folder.path() / "numbers.json", [&](JsonStream& json) {
        json.beginObject();
        json.key("floats");
        json.beginArray();
        for (float f : floats) json.value(f);
        json.endArray();
        json.key("doubles");
        json.beginArray();
        for (double d : doubles) json.value(d);
        json.endArray();
        json.endObject();
    });
    ASSERT_EQ(document.at("floats").size(), std::size(floats));
    for (std::size_t i = 0; i < std::size(floats); ++i)
        EXPECT_EQ(static_cast<float>(document.at("floats")[i].get<double>()), floats[i]) << i;
    ASSERT_EQ(document.at("doubles").size(), std::size(doubles));
    for (std::size_t i = 0; i < std::size(doubles); ++i) EXPECT_EQ(document.at("doubles")[i].get<double>(), doubles[i]) << i;
}

TEST(JsonStream, ANumberThatIsNotFiniteIsWrittenAsNull)
{
    const TestFolder folder("json_stream");
    const nlohmann::json document = writtenAndParsed(folder.path() / "null.json", [](JsonStream& json) {
        json.beginArray();
        json.value(std::numeric_limits<double>::quiet_NaN());
        json.value(std::numeric_limits<float>::infinity());
        json.value(std::int64_t{-7});
        json.endArray();
    });
    ASSERT_EQ(document.size(), 3u);
    EXPECT_TRUE(document[0].is_null());
    EXPECT_TRUE(document[1].is_null());
    EXPECT_EQ(document[2].get<std::int64_t>(), -7);
}

TEST(JsonStream, MatricesAreListsOfRows)
{
    const TestFolder folder("json_stream");
    MatrixF m(2, 3);
    m << 1.5f, -0.25f, 3.0f, 0.0f, 1e-8f, -7.0f;
    const nlohmann::json document = writtenAndParsed(folder.path() / "matrix.json", [&](JsonStream& json) {
        json.beginObject();
        json.key("m");
        json.matrix(m);
        json.endObject();
    });
    const nlohmann::json& rows = document.at("m");
    ASSERT_EQ(rows.size(), 2u);
    for (Index r = 0; r < 2; ++r) {
        ASSERT_EQ(rows[static_cast<std::size_t>(r)].size(), 3u);
        for (Index c = 0; c < 3; ++c)
            EXPECT_EQ(static_cast<float>(rows[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)].get<double>()),
                      m(r, c));
    }
}

TEST(JsonEscape, QuotesControlCharactersAndMalformedUtf8StayOneValidString)
{
    EXPECT_EQ(jsonEscape("plain"), "plain");
    EXPECT_EQ(jsonEscape("a\"b\\c"), "a\\\"b\\\\c");
    const std::string control = jsonEscape(std::string("tab\tline\nbell\x01", 14));
    EXPECT_EQ(control.find('\t'), std::string::npos);
    EXPECT_EQ(control.find('\n'), std::string::npos);
    EXPECT_EQ(control.find('\x01'), std::string::npos);
    EXPECT_EQ(parsedString(control), std::string("tab\tline\nbell\x01", 14));
    // Well-formed UTF-8 is kept as it is; a byte that cannot start a character becomes U+FFFD.
    EXPECT_EQ(parsedString(jsonEscape("caf\xC3\xA9")), "caf\xC3\xA9");
    EXPECT_EQ(parsedString(jsonEscape("a\xFFz")), "a\xEF\xBF\xBDz");
}

TEST(CheckExportTarget, JsonAndCsvReplaceAFileOrAFreeNameButNotAFolder)
{
    const TestFolder folder("export_target");
    const fs::path file = folder.path() / "old.json";
    std::ofstream(file) << "{}";
    for (ExportFormat format : {ExportFormat::Json, ExportFormat::Csv}) {
        EXPECT_TRUE(checkExportTarget(format, file.string()));
        EXPECT_TRUE(checkExportTarget(format, (folder.path() / "new.json").string()));
        const Status refused = checkExportTarget(format, folder.path().string());
        ASSERT_FALSE(refused);
        EXPECT_NE(refused.error().find(folder.path().string()), std::string::npos) << refused.error();
    }
    EXPECT_EQ(readText(file), "{}");  // checked, not touched
}

TEST(CheckExportTarget, NpyReplacesOnlyAnEarlierExportsFolderOrAnEmptyOne)
{
    const TestFolder folder("export_target");
    const fs::path empty = folder.path() / "empty";
    const fs::path earlier = folder.path() / "earlier";
    const fs::path other = folder.path() / "other";
    fs::create_directories(empty);
    fs::create_directories(earlier);
    fs::create_directories(other);
    std::ofstream(earlier / "meta.json") << "{}";
    std::ofstream(earlier / "attention.npy") << "x";
    std::ofstream(other / "notes.txt") << "mine";
    EXPECT_TRUE(checkExportTarget(ExportFormat::Npy, empty.string()));
    EXPECT_TRUE(checkExportTarget(ExportFormat::Npy, earlier.string()));
    EXPECT_TRUE(checkExportTarget(ExportFormat::Npy, (folder.path() / "new").string()));
    const Status refused = checkExportTarget(ExportFormat::Npy, other.string());
    ASSERT_FALSE(refused);
    EXPECT_TRUE(fs::exists(other / "notes.txt"));
}

TEST(ExportFormatNames, TheCommandLinesSpellingsParseAndOthersDoNot)
{
    ExportFormat format = ExportFormat::Csv;
    EXPECT_TRUE(parseExportFormat("json", format));
    EXPECT_EQ(format, ExportFormat::Json);
    EXPECT_TRUE(parseExportFormat("npy", format));
    EXPECT_EQ(format, ExportFormat::Npy);
    EXPECT_FALSE(parseExportFormat("JSON", format));
    EXPECT_FALSE(parseExportFormat("xml", format));
    EXPECT_EQ(format, ExportFormat::Npy);  // unchanged by a refused name
}

}  // namespace
}  // namespace qkv
