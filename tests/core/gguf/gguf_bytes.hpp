#pragma once
// A GGUF file assembled byte by byte in a test (the layout of core/gguf/gguf_file.hpp), so that a
// hostile case changes one field of an otherwise valid file.

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace qkv::gguf_test {

struct Bytes {
    std::vector<unsigned char> data;

    template <class T>
    Bytes& put(T value)
    {
        unsigned char raw[sizeof(T)];
        std::memcpy(raw, &value, sizeof(T));
        data.insert(data.end(), raw, raw + sizeof(T));
        return *this;
    }
    Bytes& text(const std::string& s)
    {
        put<std::uint64_t>(s.size());
        data.insert(data.end(), s.begin(), s.end());
        return *this;
    }
    Bytes& raw(const std::string& s)
    {
        data.insert(data.end(), s.begin(), s.end());
        return *this;
    }
    Bytes& padTo(std::size_t alignment)
    {
        while (data.size() % alignment != 0) data.push_back(0);
        return *this;
    }
    void save(const std::string& path, std::size_t keep = std::string::npos) const
    {
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(data.data()),
                  static_cast<std::streamsize>(std::min(keep, data.size())));
    }
};

}  // namespace qkv::gguf_test
