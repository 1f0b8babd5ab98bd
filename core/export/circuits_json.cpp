#include "core/export/circuits_json.hpp"

#include <limits>

#include "core/analysis/head_roles.hpp"

namespace qkv {

namespace {

// "token": the text, or null for an id the tokenizer does not list (as "predictions" write it).
void writeToken(JsonStream& json, const std::string& token)
{
    json.key("token");
    if (token.empty())
        json.null();
    else
        json.value(token);
}

// [{"id", "token", "top": [{"id", "token", <valueName>}]}]
void writeTokenCircuits(JsonStream& json, const std::vector<TokenCircuit>& tokens, const char* valueName)
{
    json.beginArray();
    for (const TokenCircuit& circuit : tokens) {
        json.beginObject();
        json.key("id");
        json.value(static_cast<std::int64_t>(circuit.id));
        writeToken(json, circuit.token);
        json.key("top");
        json.beginArray();
        for (const VocabularyEntry& entry : circuit.top) {
            json.beginObject();
            json.key("id");
            json.value(static_cast<std::int64_t>(entry.id));
            writeToken(json, entry.token);
            json.key(valueName);
            json.value(entry.value);
            json.endObject();
        }
        json.endArray();
        json.endObject();
    }
    json.endArray();
}

}  // namespace

void writeCircuits(JsonStream& json, const PretrainedModel& model, const std::vector<HeadCircuits>& heads)
{
    json.key("circuits");
    json.beginArray();
    for (const HeadCircuits& head : heads) {
        json.newline();
        json.beginObject();
        json.key("layer");
        json.value(
            static_cast<std::int64_t>(model.layersInModelOrder[static_cast<std::size_t>(head.head.layer)].index));
        json.key("head");
        json.value(static_cast<std::int64_t>(head.head.head + 1));
        json.key("kv_head");
        json.value(static_cast<std::int64_t>(head.keyValueHead + 1));
        json.key("copying_score");
        json.value(head.spectrum.copyingScore);
        json.key("eigenvalues");
        json.beginArray();
        for (const std::complex<double>& lambda : head.spectrum.eigenvalues) {
            json.beginArray();
            json.value(lambda.real());
            json.value(lambda.imag());
            json.endArray();
        }
        json.endArray();
        json.key("qk");
        writeTokenCircuits(json, head.qk, "score");
        json.key("ov");
        writeTokenCircuits(json, head.ov, "logit");
        json.endObject();
    }
    json.endArray();
}

void writeHeadRoles(JsonStream& json, const MatrixF* attention, const std::vector<std::int32_t>& tokenIds)
{
    constexpr double none = std::numeric_limits<double>::quiet_NaN();  // written as null
    json.key("roles");
    json.beginObject();
    json.key("previous_token");
    json.value(attention ? previousTokenScore(*attention) : none);
    json.key("induction");
    json.value(attention ? inductionScore(*attention, tokenIds) : none);
    json.key("duplicate_token");
    json.value(attention ? duplicateTokenScore(*attention, tokenIds) : none);
    json.key("first_token");
    json.value(attention ? firstTokenScore(*attention) : none);
    json.endObject();
}

}  // namespace qkv
