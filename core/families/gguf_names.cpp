#include "core/families/gguf_names.hpp"

#include <charconv>

namespace qkv {
namespace {

struct BlockName {
    std::string_view gguf;
    std::string_view huggingFace;
};

constexpr std::array<BlockName, 13> kBlockNames{{
    {"attn_norm", "input_layernorm"},
    {"attn_q", "self_attn.q_proj"},
    {"attn_k", "self_attn.k_proj"},
    {"attn_v", "self_attn.v_proj"},
    {"attn_output", "self_attn.o_proj"},
    {"attn_qkv", "self_attn.qkv_proj"},
    {"attn_q_norm", "self_attn.q_norm"},
    {"attn_k_norm", "self_attn.k_norm"},
    {"ffn_gate", "mlp.gate_proj"},
    {"ffn_up", "mlp.up_proj"},
    {"ffn_down", "mlp.down_proj"},
    {"ffn_norm", "post_attention_layernorm"},
    {"post_ffw_norm", "post_feedforward_layernorm"},
}};

std::optional<std::string> blockTensorName(const GgufArchitectureRow& row, std::string_view rest)
{
    // rest: "N.<name>.<weight|bias>"
    const auto dot = rest.find('.');
    if (dot == std::string_view::npos || dot == 0) return std::nullopt;
    unsigned block = 0;
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + dot, block);
    if (error != std::errc{} || end != rest.data() + dot) return std::nullopt;
    std::string_view tail = rest.substr(dot + 1);
    const auto lastDot = tail.rfind('.');
    if (lastDot == std::string_view::npos) return std::nullopt;
    const std::string_view module = tail.substr(0, lastDot), suffix = tail.substr(lastDot);
    if (suffix != ".weight" && suffix != ".bias") return std::nullopt;
    std::string_view mapped;
    if (row.gemmaBlock && module == "ffn_norm") mapped = "pre_feedforward_layernorm";
    else if (row.gemmaBlock && module == "post_attention_norm") mapped = "post_attention_layernorm";
    else if (row.fusedGateUp && module == "ffn_up") mapped = "mlp.gate_up_proj";
    else
        for (const BlockName& name : kBlockNames)
            if (name.gguf == module) mapped = name.huggingFace;
    if (mapped.empty()) return std::nullopt;
    return "model.layers." + std::to_string(block) + "." + std::string(mapped) + std::string(suffix);
}

}  // namespace

const GgufArchitectureRow* ggufArchitectureRow(std::string_view architecture)
{
    for (const GgufArchitectureRow& row : kGgufArchitectures)
        if (row.architecture == architecture) return &row;
    return nullptr;
}

std::string ggufArchitectureNames()
{
    std::string names;
    for (const GgufArchitectureRow& row : kGgufArchitectures)
        names += (names.empty() ? "" : ", ") + std::string(row.architecture);
    return names;
}

std::optional<std::string> huggingFaceTensorName(const GgufArchitectureRow& row, std::string_view ggufName)
{
    if (ggufName == "token_embd.weight") return std::string("model.embed_tokens.weight");
    if (ggufName == "output_norm.weight") return std::string("model.norm.weight");
    if (ggufName == "output.weight") return std::string("lm_head.weight");
    if (ggufName.starts_with("blk.")) return blockTensorName(row, ggufName.substr(4));
    return std::nullopt;
}

bool isNormWeightName(std::string_view name)
{
    return name.ends_with("norm.weight") || name.ends_with("layernorm.weight");
}

}  // namespace qkv
