#pragma once
// Base64 (RFC 4648, standard alphabet, padded): how sessions embed raw float32 arrays.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qkv {

std::string base64Encode(const void* data, std::size_t bytes);
// Nothing (no value) on any character outside the alphabet, a wrong length or bad padding.
std::optional<std::vector<unsigned char>> base64Decode(std::string_view text);
// Bytes that base64Decode would give for `text`, from its length alone (0 when invalid).
std::size_t base64DecodedSize(std::string_view text);

}  // namespace qkv
