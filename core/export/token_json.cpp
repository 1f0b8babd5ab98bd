#include "core/export/token_json.hpp"

namespace qkv {

void writeTokenPiece(JsonStream& json, const std::vector<std::string>& pieces, std::int32_t id)
{
    json.key("token");
    const auto row = static_cast<std::size_t>(id);
    if (id < 0 || row >= pieces.size() || pieces[row].empty())
        json.null();
    else
        json.value(pieces[row]);
}

void writePositionsTop(JsonStream& json, const std::vector<std::string>& pieces,
                       const std::vector<PositionPredictions>& positions)
{
    json.beginArray();
    for (const PositionPredictions& position : positions) {
        json.newline();
        json.beginObject();
        json.key("position");
        json.value(static_cast<std::int64_t>(position.position));
        json.key("top");
        json.beginArray();
        for (const TokenProbability& token : position.top) {
            json.beginObject();
            json.key("id");
            json.value(static_cast<std::int64_t>(token.id));
            writeTokenPiece(json, pieces, token.id);
            json.key("probability");
            json.value(token.probability);
            json.endObject();
        }
        json.endArray();
        json.endObject();
    }
    json.endArray();
}

}  // namespace qkv
