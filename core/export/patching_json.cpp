#include "core/export/patching_json.hpp"

#include "core/export/token_json.hpp"

namespace qkv {

namespace {

void writeIdToken(JsonStream& json, const char* name, const std::vector<std::string>& pieces, std::int32_t id)
{
    json.key(name);
    json.beginObject();
    json.key("id");
    json.value(static_cast<std::int64_t>(id));
    writeTokenPiece(json, pieces, id);
    json.endObject();
}

void writeGrid(JsonStream& json, const char* name, const std::vector<std::vector<double>>& grid)
{
    json.key(name);
    json.beginArray();
    for (const std::vector<double>& layer : grid) {
        json.newline();
        json.beginArray();
        for (const double r : layer) json.value(r);
        json.endArray();
    }
    json.endArray();
}

}  // namespace

void writePatching(JsonStream& json, const std::vector<std::string>& pieces, const PatchingGrids& grids)
{
    json.key("patching");
    json.beginObject();
    writeIdToken(json, "answer", pieces, grids.answer);
    writeIdToken(json, "wrong", pieces, grids.wrong);
    json.key("clean_logit_difference");
    json.value(grids.cleanDifference);
    json.key("corrupt_logit_difference");
    json.value(grids.corruptDifference);
    json.newline();
    writeGrid(json, "heads", grids.heads);
    json.newline();
    writeGrid(json, "residual", grids.residual);
    json.endObject();
}

void writeLogitLens(JsonStream& json, const PretrainedModel& model, const std::vector<std::string>& pieces,
                    const std::vector<LogitLensLayer>& lens)
{
    json.key("logit_lens");
    json.beginArray();
    for (const LogitLensLayer& layer : lens) {
        json.newline();
        json.beginObject();
        json.key("layer");
        json.value(static_cast<std::int64_t>(model.layersInModelOrder[static_cast<std::size_t>(layer.layer)].index));
        json.key("positions");
        writePositionsTop(json, pieces, layer.positions);
        json.endObject();
    }
    json.endArray();
}

}  // namespace qkv
