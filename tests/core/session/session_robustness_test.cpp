// Corrupt, truncated and hostile sessions give a message naming the problem, never a crash.
#include <cstdint>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/common/random.hpp"
#include "core/config/examples.hpp"
#include "core/session/base64.hpp"
#include "core/session/session.hpp"

namespace qkv {
namespace {

Session editedSession()
{
    Session s;
    s.config = builtInExample();
    s.config.d_model = 16;
    s.config.headCount = 4;
    s.config.presets = {{1, HeadPresetKind::Uniform, 1.0, 1}};
    s.weights = std::make_shared<const AttentionWeights>(initialiseWeights(16, 3, WeightInit::Normal, false));
    s.weightsProvenance.heads.assign(4, HeadOrigin::Edited);
    return s;
}

void expectRefused(const std::string& json, const std::string& fragment)
{
    const auto parsed = parseSession(json, "bad.qkv.json");
    ASSERT_FALSE(parsed.ok()) << "accepted: " << json.substr(0, 200);
    EXPECT_NE(parsed.error().find("bad.qkv.json"), std::string::npos) << parsed.error();
    EXPECT_NE(parsed.error().find(fragment), std::string::npos) << "wanted «" << fragment << "» in: " << parsed.error();
}

std::string replaced(std::string text, const std::string& from, const std::string& to)
{
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

TEST(SessionRobustness, NamedProblems)
{
    const std::string good = sessionToJson(editedSession());
    expectRefused(good.substr(0, good.size() / 2), "not valid JSON");
    expectRefused("[1, 2, 3]", "not a QKV Studio session");
    expectRefused(replaced(good, "\"qkv-studio-session\"", "\"qkv-studio-export\""), "not a QKV Studio session");
    expectRefused(replaced(good, "\"mode\": \"cross\"", "\"mode\": \"sideways\""), "config.mode: 'sideways'");
    expectRefused(replaced(good, "\"heads\": 4", "\"heads\": 3"), "h = 3 does not divide");
    expectRefused(replaced(good, "\"heads\": 4", "\"heads\": \"four\""), "config.heads");
    // The app's limit, not a parser's bound of 1048576.
    expectRefused(replaced(good, "\"d_model\": 16", "\"d_model\": 5000000"),
                  "config.d_model: must be a whole number between 1 and 4096");
    expectRefused(replaced(good, "\"heads\": 4", "\"heads\": 300"), "config.heads: must be a whole number between 1 and 256");
    expectRefused(replaced(good, "\"name\": \"uniform\"", "\"name\": \"psychic\""), "'psychic' is not a preset name");
    expectRefused(replaced(good, "\"shape\": [\n          16,\n          16\n        ]",
                           "\"shape\": [\n          16,\n          15\n        ]"),
                  "is 16 x 15, expected 16 x 16");
    expectRefused(replaced(good, "\"zoom\": 1.0", "\"zoom\": -2"), "view.zoom");
    for (const char* span : {"[5, 5]", "[6, 2]", "[-1, 3]", "[1]", "\"1:3\"", "[0, 99999999]"})
        expectRefused(replaced(good, "\"zoom\": 1.0", std::string("\"zoom\": 1.0, \"query_span\": ") + span),
                      "view.query_span");
    expectRefused(replaced(good, "\"ablated_heads\": []", "\"ablated_heads\": [9]"), "Head 9 cannot be switched off");
}

TEST(SessionRobustness, BadTensorDataIsRefused)
{
    Session s = editedSession();
    AttentionWeights w = *s.weights;
    w.valueProjection(0, 0) = std::numeric_limits<float>::quiet_NaN();
    s.weights = std::make_shared<const AttentionWeights>(w);
    expectRefused(sessionToJson(s), "NaN");
    const std::string good = sessionToJson(editedSession());
    const auto data = good.find("\"data\": \"") + 9;
    std::string broken = good;
    broken[data + 3] = '#';
    expectRefused(broken, "not valid base64");
    broken = good;
    broken.erase(data, 4);
    expectRefused(broken, "bytes of data, expected 1024");
}

TEST(SessionRobustness, FilesThatAreNotSessions)
{
    const auto dir = std::filesystem::temp_directory_path() / ("qkv-session-files-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    EXPECT_FALSE(readSession((dir / "missing.qkv.json").string()).ok());
    EXPECT_FALSE(readSession(dir.string()).ok());  // a folder
    const std::string fifo = (dir / "fifo.qkv.json").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const auto fromFifo = readSession(fifo);  // must not block
    EXPECT_FALSE(fromFifo.ok());
    { std::ofstream(dir / "empty.qkv.json"); }
    EXPECT_FALSE(readSession((dir / "empty.qkv.json").string()).ok());
    std::filesystem::remove_all(dir);
}

TEST(SessionRobustness, Base64RoundTripsAndRejects)
{
    for (std::size_t n = 0; n < 10; ++n) {
        std::vector<unsigned char> bytes;
        for (std::size_t i = 0; i < n; ++i) bytes.push_back(static_cast<unsigned char>(37 * i + 11));
        const std::string text = base64Encode(bytes.data(), n);
        EXPECT_EQ(base64DecodedSize(text), n);
        const auto back = base64Decode(text);
        ASSERT_TRUE(back.has_value());
        EXPECT_EQ(*back, bytes);
    }
    EXPECT_EQ(base64Encode("foobar", 6), "Zm9vYmFy");  // RFC 4648 test vectors
    EXPECT_EQ(base64Encode("fo", 2), "Zm8=");
    EXPECT_FALSE(base64Decode("Zm8").has_value());
    EXPECT_FALSE(base64Decode("Z=m8").has_value());
    EXPECT_FALSE(base64Decode("Zm8=Zm8=").has_value());
}

// Seeded mutations of a valid session: each gives a session or a message, never a crash.
TEST(SessionRobustness, MutatedSessionsNeverCrash)
{
    const std::string good = sessionToJson(editedSession());
    SplitMix64 random(2024);
    int accepted = 0;
    for (int round = 0; round < 400; ++round) {
        std::string text = good;
        const int edits = 1 + static_cast<int>(random.next() % 4);
        for (int e = 0; e < edits; ++e) {
            const std::size_t at = random.next() % text.size();
            switch (random.next() % 4) {
            case 0: text[at] = static_cast<char>(random.next() & 0xff); break;
            case 1: text.erase(at, 1 + random.next() % 16); break;
            case 2: {
                const char pieces[] = "[{\"0-9e,:";
                text.insert(at, std::string(1 + random.next() % 8, pieces[random.next() % 9]));
                break;
            }
            case 3: text.resize(at); break;
            }
            if (text.empty()) text = "{";
        }
        const auto parsed = parseSession(text, "mutated");
        if (parsed.ok()) ++accepted;
        else EXPECT_FALSE(parsed.error().empty());
    }
    RecordProperty("accepted", accepted);
}

TEST(SessionRobustness, DeepNestingIsAMessage)
{
    std::string deep = "{\"format\": \"qkv-studio-session\", \"version\": 1, \"config\": ";
    deep += std::string(100000, '[') + std::string(100000, ']') + "}";
    EXPECT_FALSE(parseSession(deep, "deep").ok());
}

}  // namespace
}  // namespace qkv
