#include "core/export/json_stream.hpp"

#include <charconv>
#include <cmath>

#include "core/text/tokenizer.hpp"

namespace qkv {

namespace {

template <class Number>
void writeNumber(AtomicFile& file, Number number)
{
    char buffer[64];
    const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, number);
    (void)error;  // 64 bytes hold any float, double or int64
    file.write(buffer, static_cast<std::size_t>(end - buffer));
}

}  // namespace

std::string jsonEscape(std::string_view utf8)
{
    std::string out;
    out.reserve(utf8.size() + 2);
    // Re-encode through the tokenizer's validator: sanitizeUtf8 keeps valid text as is.
    for (char c : sanitizeUtf8(utf8)) {
        const auto byte = static_cast<unsigned char>(c);
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (byte < 0x20) {
                static constexpr char hex[] = "0123456789abcdef";
                out += "\\u00";
                out += hex[byte >> 4];
                out += hex[byte & 0xF];
            } else {
                out += c;
            }
        }
    }
    return out;
}

void JsonStream::separate()
{
    if (afterKey_) {
        afterKey_ = false;
        return;
    }
    if (!first_.empty()) {
        if (!first_.back()) file_.write(",");
        first_.back() = false;
    }
}

void JsonStream::beginObject()
{
    separate();
    file_.write("{");
    first_.push_back(true);
}

void JsonStream::endObject()
{
    first_.pop_back();
    file_.write("}");
}

void JsonStream::beginArray()
{
    separate();
    file_.write("[");
    first_.push_back(true);
}

void JsonStream::endArray()
{
    first_.pop_back();
    file_.write("]");
}

void JsonStream::key(std::string_view name)
{
    separate();
    file_.write("\"");
    file_.write(jsonEscape(name));
    file_.write("\":");
    afterKey_ = true;
}

void JsonStream::value(std::string_view text)
{
    separate();
    file_.write("\"");
    file_.write(jsonEscape(text));
    file_.write("\"");
}

void JsonStream::value(bool flag)
{
    separate();
    file_.write(flag ? "true" : "false");
}

void JsonStream::value(std::int64_t number)
{
    separate();
    writeNumber(file_, number);
}

void JsonStream::value(float number)
{
    separate();
    if (!std::isfinite(number)) file_.write("null");  // JSON has no NaN; results are validated finite
    else writeNumber(file_, number);
}

void JsonStream::value(double number)
{
    separate();
    if (!std::isfinite(number)) file_.write("null");
    else writeNumber(file_, number);
}

void JsonStream::null()
{
    separate();
    file_.write("null");
}

void JsonStream::raw(std::string_view json)
{
    separate();
    file_.write(json);
}

template <class Matrix>
void JsonStream::rows(const Matrix& m)
{
    beginArray();
    for (Index r = 0; r < m.rows(); ++r) {
        newline();
        beginArray();
        for (Index c = 0; c < m.cols(); ++c) value(m(r, c));
        endArray();
    }
    endArray();
}

void JsonStream::matrix(const MatrixF& m) { rows(m); }
void JsonStream::matrix(const MatrixD& m) { rows(m); }

void JsonStream::indices(const std::vector<Index>& values)
{
    beginArray();
    for (const Index v : values) value(static_cast<std::int64_t>(v));
    endArray();
}

void JsonStream::strings(const std::vector<std::string>& texts)
{
    beginArray();
    for (const std::string& text : texts) value(std::string_view(text));
    endArray();
}

}  // namespace qkv
