#include "core/modelfiles/checkpoint_json.hpp"

#include <algorithm>
#include <new>
#include <string_view>
#include <vector>

#include "core/io/file_bytes.hpp"
#include "core/io/json_depth.hpp"

namespace qkv::checkpoint_detail {

namespace {

// Config and index files nest a few levels; a much deeper file is not one of them, and
// refusing it before parsing keeps the JSON library's recursion bounded.
constexpr int kMaxDepth = 32;

}  // namespace

Expected<nlohmann::json> readJsonObjectFile(const std::string& path, std::size_t maxBytes)
{
    Expected<std::string> bytes = readFileBytes(path, maxBytes);
    if (!bytes) return Error{bytes.error()};
    const std::string_view text(*bytes);
    if (jsonDepth(text, kMaxDepth) > kMaxDepth)
        return Error{path + ": is not valid JSON here (it nests more than " + std::to_string(kMaxDepth) +
                     " levels deep)"};
    try {
        nlohmann::json json = nlohmann::json::parse(text.begin(), text.end());
        if (!json.is_object()) return Error{path + ": is not a JSON object"};
        return json;
    } catch (const nlohmann::json::exception& e) {
        std::string what = e.what();
        if (const auto close = what.find("] "); what.starts_with("[json.") && close != std::string::npos)
            what.erase(0, close + 2);
        return Error{path + ": is not valid JSON (" + what + ")"};
    } catch (const std::bad_alloc&) {
        return Error{path + ": not enough memory to read it"};
    }
}

}  // namespace qkv::checkpoint_detail
