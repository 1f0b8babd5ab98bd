#include "bench/pretrained/large_checkpoints.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <vector>

#include "core/common/random.hpp"
#include "tests/core/gguf/gguf_bytes.hpp"

namespace qkv::bench {

namespace {

namespace fs = std::filesystem;

// How a tensor's values are made.
enum class Fill { Random, Ones };

struct PlannedTensor {
    std::string name;
    std::vector<std::uint64_t> shape;  // safetensors' order (out x in); GGUF writes it reversed
    Fill fill = Fill::Random;
    std::uint32_t ggmlType = 12;  // GGUF only: Q4_K (12), Q6_K (14), F32 (0)
};

std::uint64_t valueCount(const PlannedTensor& t)
{
    std::uint64_t n = 1;
    for (const std::uint64_t e : t.shape) n *= e;
    return n;
}

// llama.cpp's Q4_K_M rule for attn_v and ffn_down (llama-quant.cpp's use_more_bits): the first and
// last eighth of the layers and every third layer between them get Q6_K.
bool moreBits(Index layer, Index layers)
{
    return layer < layers / 8 || layer >= 7 * layers / 8 || (layer - layers / 8) % 3 == 2;
}

constexpr std::uint32_t kF32 = 0, kQ4K = 12, kQ6K = 14;

// Every tensor of the model in the file's order, with the Hugging Face names (safetensors) or
// llama.cpp's (gguf).
std::vector<PlannedTensor> plannedTensors(const SyntheticShape& s, bool gguf)
{
    const auto d = static_cast<std::uint64_t>(s.d_model), ff = static_cast<std::uint64_t>(s.d_ff);
    const auto V = static_cast<std::uint64_t>(s.vocabulary);
    const auto q = static_cast<std::uint64_t>(s.heads * s.d_k()), kv = static_cast<std::uint64_t>(s.g() * s.d_k());
    std::vector<PlannedTensor> t;
    const auto norm = [&](const std::string& name) { t.push_back({name, {d}, Fill::Ones, kF32}); };
    t.push_back({gguf ? "token_embd.weight" : "model.embed_tokens.weight", {V, d}, Fill::Random, kQ4K});
    for (Index l = 0; l < s.layers; ++l) {
        const std::uint32_t more = moreBits(l, s.layers) ? kQ6K : kQ4K;
        if (gguf) {
            const std::string p = "blk." + std::to_string(l) + ".";
            norm(p + "attn_norm.weight");
            t.push_back({p + "attn_q.weight", {q, d}, Fill::Random, kQ4K});
            t.push_back({p + "attn_k.weight", {kv, d}, Fill::Random, kQ4K});
            t.push_back({p + "attn_v.weight", {kv, d}, Fill::Random, more});
            t.push_back({p + "attn_output.weight", {d, q}, Fill::Random, kQ4K});
            norm(p + "ffn_norm.weight");
            t.push_back({p + "ffn_gate.weight", {ff, d}, Fill::Random, kQ4K});
            t.push_back({p + "ffn_up.weight", {ff, d}, Fill::Random, kQ4K});
            t.push_back({p + "ffn_down.weight", {d, ff}, Fill::Random, more});
        } else {
            const std::string p = "model.layers." + std::to_string(l) + ".";
            norm(p + "input_layernorm.weight");
            t.push_back({p + "self_attn.q_proj.weight", {q, d}});
            t.push_back({p + "self_attn.k_proj.weight", {kv, d}});
            t.push_back({p + "self_attn.v_proj.weight", {kv, d}});
            t.push_back({p + "self_attn.o_proj.weight", {d, q}});
            norm(p + "post_attention_layernorm.weight");
            t.push_back({p + "mlp.gate_proj.weight", {ff, d}});
            t.push_back({p + "mlp.up_proj.weight", {ff, d}});
            t.push_back({p + "mlp.down_proj.weight", {d, ff}});
        }
    }
    norm(gguf ? "output_norm.weight" : "model.norm.weight");
    if (!s.tiedReadout) t.push_back({gguf ? "output.weight" : "lm_head.weight", {V, d}, Fill::Random, kQ6K});
    return t;
}

// Random bits, fast (SplitMix64's stream, 64 bits at a time).
class Bits {
public:
    explicit Bits(std::uint64_t seed) : random_(seed) {}
    std::uint64_t next() { return random_.next(); }

private:
    SplitMix64 random_;
};

// bf16 of x, rounded to nearest even (as torch's .to(torch.bfloat16)).
std::uint16_t bf16(float x)
{
    std::uint32_t bits = 0;
    std::memcpy(&bits, &x, 4);
    return static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

// `count` bf16 values into `out`: uniform on [-a, a], a = 0.02 sqrt(3) (standard deviation 0.02),
// or ones.
void fillBf16(Fill fill, std::uint64_t count, Bits& bits, std::uint16_t* out)
{
    if (fill == Fill::Ones) {
        std::fill(out, out + count, std::uint16_t{0x3f80});
        return;
    }
    const float a = static_cast<float>(0.02 * std::sqrt(3.0));
    for (std::uint64_t i = 0; i < count; i += 2) {
        const std::uint64_t r = bits.next();
        for (std::uint64_t k = 0; k < 2 && i + k < count; ++k) {
            const auto u = static_cast<float>((r >> (32 * k + 8)) & 0xffffffu) * (1.0f / 16777216.0f);  // [0, 1)
            out[i + k] = bf16((2.0f * u - 1.0f) * a);
        }
    }
}

// Writes `bytes` bytes of a tensor in chunks that `produce(first, count, out)` fills.
bool writeChunked(std::ofstream& out, std::uint64_t bytes, std::uint64_t unit,
                  const std::function<void(std::uint64_t first, std::uint64_t units, unsigned char* out)>& produce)
{
    const std::uint64_t chunkUnits = std::max<std::uint64_t>(1, (std::uint64_t{8} << 20) / unit);
    std::vector<unsigned char> chunk(static_cast<std::size_t>(chunkUnits * unit));
    for (std::uint64_t first = 0; first * unit < bytes; first += chunkUnits) {
        const std::uint64_t units = std::min(chunkUnits, bytes / unit - first);
        produce(first, units, chunk.data());
        out.write(reinterpret_cast<const char*>(chunk.data()), static_cast<std::streamsize>(units * unit));
    }
    return static_cast<bool>(out);
}

Status renamedIntoPlace(const fs::path& partial, const fs::path& target)
{
    std::error_code error;
    fs::rename(partial, target, error);
    if (error) return Error{"cannot rename " + partial.string() + ": " + error.message()};
    return {};
}

Status writeSafetensorsStream(const fs::path& path, const std::vector<PlannedTensor>& tensors)
{
    std::string header = "{";
    std::uint64_t offset = 0;
    for (const PlannedTensor& t : tensors) {
        const std::uint64_t bytes = 2 * valueCount(t);
        std::string shape;
        for (std::size_t i = 0; i < t.shape.size(); ++i) shape += (i ? "," : "") + std::to_string(t.shape[i]);
        header += (offset ? "," : "") + std::string("\"") + t.name + "\":{\"dtype\":\"BF16\",\"shape\":[" + shape +
                  "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + bytes) + "]}";
        offset += bytes;
    }
    header += "}";
    while (header.size() % 8 != 0) header += ' ';
    const fs::path partial = path.string() + ".partial";
    std::ofstream out(partial, std::ios::binary);
    const std::uint64_t length = header.size();
    out.write(reinterpret_cast<const char*>(&length), 8);
    out << header;
    Bits bits(20);
    for (const PlannedTensor& t : tensors)
        writeChunked(out, 2 * valueCount(t), 2, [&](std::uint64_t, std::uint64_t units, unsigned char* chunk) {
            fillBf16(t.fill, units, bits, reinterpret_cast<std::uint16_t*>(chunk));
        });
    out.close();
    if (!out) return Error{"cannot write " + partial.string()};
    return renamedIntoPlace(partial, path);
}

// ggml's block sizes: 256 values in 144 bytes (Q4_K) or 210 (Q6_K).
std::uint64_t ggufBytes(const PlannedTensor& t)
{
    const std::uint64_t n = valueCount(t);
    if (t.ggmlType == kF32) return 4 * n;
    return n / 256 * (t.ggmlType == kQ4K ? 144 : 210);
}

// Random quantized blocks with small finite scales: Q4_K's d and dmin (f16 at bytes 0 and 2,
// 1e-4: values within +-0.1) or Q6_K's d (f16 at byte 208, 2^-16: within +-0.07).
void fillBlocks(std::uint32_t type, std::uint64_t blocks, Bits& bits, unsigned char* out)
{
    const std::size_t blockBytes = type == kQ4K ? 144 : 210;
    const std::size_t bytes = blocks * blockBytes;
    for (std::size_t i = 0; i < bytes; i += 8) {
        const std::uint64_t r = bits.next();
        std::memcpy(out + i, &r, std::min<std::size_t>(8, bytes - i));
    }
    const std::uint16_t q4Scale = 0x068e, q6Scale = 0x0100;
    for (std::uint64_t b = 0; b < blocks; ++b) {
        unsigned char* block = out + b * blockBytes;
        if (type == kQ4K) {
            std::memcpy(block, &q4Scale, 2);
            std::memcpy(block + 2, &q4Scale, 2);
        } else {
            std::memcpy(block + 208, &q6Scale, 2);
        }
    }
}

// Llama 3's rope_freqs as llama.cpp's converter writes them: one factor per frequency
// (1 for short wavelengths, `factor` for long ones, a blend between), config.json's numbers.
std::vector<float> llama3RopeFactors(Index d_k, double base)
{
    constexpr double factor = 32.0, low = 1.0, high = 4.0, original = 8192.0, pi = 3.14159265358979323846;
    std::vector<float> factors;
    for (Index i = 0; i < d_k / 2; ++i) {
        const double frequency = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(d_k));
        const double wavelength = 2.0 * pi / frequency;
        if (wavelength < original / high) factors.push_back(1.0f);
        else if (wavelength > original / low) factors.push_back(static_cast<float>(factor));
        else {
            const double smooth = (original / wavelength - low) / (high - low);
            factors.push_back(static_cast<float>(1.0 / ((1.0 - smooth) / factor + smooth)));
        }
    }
    return factors;
}

gguf_test::Bytes ggufHeader(const SyntheticShape& s, const std::vector<PlannedTensor>& tensors)
{
    constexpr std::uint32_t u32 = 4, f32 = 6, string = 8;
    gguf_test::Bytes b;
    struct Key {
        std::string name;
        std::uint32_t type;
        double value;
    };
    const auto n = [](Index v) { return static_cast<double>(v); };
    const std::vector<Key> keys{{"llama.block_count", u32, n(s.layers)},
                                {"llama.context_length", u32, n(s.positions)},
                                {"llama.embedding_length", u32, n(s.d_model)},
                                {"llama.feed_forward_length", u32, n(s.d_ff)},
                                {"llama.attention.head_count", u32, n(s.heads)},
                                {"llama.attention.head_count_kv", u32, n(s.g())},
                                {"llama.attention.key_length", u32, n(s.d_k())},
                                {"llama.attention.value_length", u32, n(s.d_k())},
                                {"llama.rope.dimension_count", u32, n(s.d_k())},
                                {"llama.vocab_size", u32, n(s.vocabulary)},
                                {"llama.rope.freq_base", f32, 500000.0},
                                {"llama.attention.layer_norm_rms_epsilon", f32, 1e-5},
                                {"general.alignment", u32, 32},
                                {"general.file_type", u32, 15}};  // ggml's MOSTLY_Q4_K_M
    b.raw("GGUF").put<std::uint32_t>(3).put<std::uint64_t>(tensors.size() + 1).put<std::uint64_t>(keys.size() + 1);
    b.text("general.architecture").put<std::uint32_t>(string).text("llama");
    for (const Key& k : keys) {
        b.text(k.name).put<std::uint32_t>(k.type);
        if (k.type == u32) b.put<std::uint32_t>(static_cast<std::uint32_t>(k.value));
        else b.put<float>(static_cast<float>(k.value));
    }
    std::uint64_t offset = 0;
    const auto info = [&](const std::string& name, const std::vector<std::uint64_t>& shape, std::uint32_t type,
                          std::uint64_t bytes) {
        b.text(name).put<std::uint32_t>(static_cast<std::uint32_t>(shape.size()));
        for (auto e = shape.rbegin(); e != shape.rend(); ++e) b.put<std::uint64_t>(*e);  // ne[0] first
        b.put<std::uint32_t>(type).put<std::uint64_t>(offset);
        offset += (bytes + 31) / 32 * 32;
    };
    info("rope_freqs.weight", {static_cast<std::uint64_t>(s.d_k() / 2)}, kF32, 4 * static_cast<std::uint64_t>(s.d_k() / 2));
    for (const PlannedTensor& t : tensors) info(t.name, t.shape, t.ggmlType, ggufBytes(t));
    b.padTo(32);
    return b;
}

Status writeGgufStream(const fs::path& path, const SyntheticShape& s, const std::vector<PlannedTensor>& tensors)
{
    const gguf_test::Bytes header = ggufHeader(s, tensors);
    const fs::path partial = path.string() + ".partial";
    std::ofstream out(partial, std::ios::binary);
    out.write(reinterpret_cast<const char*>(header.data.data()), static_cast<std::streamsize>(header.data.size()));
    const auto pad = [&](std::uint64_t bytes) {
        static const char zeros[32] = {};
        out.write(zeros, static_cast<std::streamsize>((32 - bytes % 32) % 32));
    };
    const std::vector<float> factors = llama3RopeFactors(s.d_k(), 500000.0);
    out.write(reinterpret_cast<const char*>(factors.data()), static_cast<std::streamsize>(4 * factors.size()));
    pad(4 * factors.size());
    Bits bits(21);
    for (const PlannedTensor& t : tensors) {
        if (t.ggmlType == kF32) {
            const std::vector<float> ones(static_cast<std::size_t>(valueCount(t)), 1.0f);
            out.write(reinterpret_cast<const char*>(ones.data()), static_cast<std::streamsize>(4 * ones.size()));
        } else {
            const std::uint64_t blockBytes = t.ggmlType == kQ4K ? 144 : 210;
            writeChunked(out, ggufBytes(t), blockBytes, [&](std::uint64_t, std::uint64_t blocks, unsigned char* chunk) {
                fillBlocks(t.ggmlType, blocks, bits, chunk);
            });
        }
        pad(ggufBytes(t));
    }
    out.close();
    if (!out) return Error{"cannot write " + partial.string()};
    return renamedIntoPlace(partial, path);
}

}  // namespace

Expected<std::string> largeSafetensorsCheckpoint(const SyntheticShape& shape, const std::string& root)
{
    Expected<CheckpointFolder> place = checkpointFolder(shape, root);
    if (!place) return Error{place.error()};
    if (place->whole) return place->folder;
    if (Status s = writeSafetensorsStream(place->model, plannedTensors(shape, false)); !s) return Error{s.error()};
    return place->folder;
}

Expected<std::string> largeGgufCheckpoint(const SyntheticShape& shape, const std::string& root)
{
    const fs::path path = fs::path(root) / (std::string(shape.name) + "-q4_k_m.gguf");
    std::error_code error;
    if (fs::exists(path, error)) return path.string();
    fs::create_directories(path.parent_path(), error);
    if (error) return Error{"cannot create " + path.parent_path().string() + ": " + error.message()};
    if (Status s = writeGgufStream(path, shape, plannedTensors(shape, true)); !s) return Error{s.error()};
    return path.string();
}

}  // namespace qkv::bench
