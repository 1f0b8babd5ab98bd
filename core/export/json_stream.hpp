#pragma once
// A minimal streaming JSON writer: exports at n = 2048 hold ~10^8 numbers, far too many for a
// DOM, so values go straight to the file. Floats use the shortest text that reads back to
// the same bits (std::to_chars).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/matrix.hpp"
#include "core/io/atomic_file.hpp"

namespace qkv {

class JsonStream {
public:
    explicit JsonStream(AtomicFile& file) : file_(file) {}

    void beginObject();
    void endObject();
    void beginArray();
    void endArray();
    void key(std::string_view name);

    void value(std::string_view text);
    void value(const char* text) { value(std::string_view(text)); }
    void value(bool flag);
    void value(std::int64_t number);
    void value(float number);
    void value(double number);
    void null();
    // A value already serialised as JSON (one complete value, e.g. an object).
    void raw(std::string_view json);

    // A matrix as a list of rows, one row per line.
    void matrix(const MatrixF& m);
    void matrix(const MatrixD& m);
    void indices(const std::vector<Index>& values);
    void strings(const std::vector<std::string>& texts);
    void newline() { file_.write("\n"); }

private:
    void separate();
    template <class Matrix>
    void rows(const Matrix& m);

    AtomicFile& file_;
    std::vector<bool> first_;  // per open container: nothing written in it yet
    bool afterKey_ = false;
};

// Escapes for a JSON string body; malformed UTF-8 bytes become U+FFFD so output is valid JSON.
std::string jsonEscape(std::string_view utf8);

}  // namespace qkv
