#include "bench/pretrained/synthetic_checkpoints.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "core/common/random.hpp"
#include "core/io/safetensors.hpp"

namespace qkv::bench {

namespace {

namespace fs = std::filesystem;

// Builds the tensors of one file, every random one from the same stream.
class TensorBuilder {
public:
    explicit TensorBuilder(std::uint64_t seed) : random_(seed) {}

    // rows x cols, uniform on [-a, a] with a = 0.02 sqrt(3): standard deviation 0.02.
    void random(const std::string& name, Index rows, Index cols)
    {
        const float a = static_cast<float>(0.02 * std::sqrt(3.0));
        MatrixF m(rows, cols);
        float* values = m.data();
        for (Index i = 0; i < m.size(); ++i) values[i] = static_cast<float>(random_.uniform(-a, a));
        file_.tensors.push_back(Tensor::fromMatrix(name, m));
    }
    void constant(const std::string& name, Index count, float value)
    {
        const std::vector<float> values(static_cast<std::size_t>(count), value);
        file_.tensors.push_back(Tensor::fromVector(name, values));
    }
    // nn.Linear: weight out x in, bias out.
    void linear(const std::string& stem, Index out, Index in)
    {
        random(stem + ".weight", out, in);
        constant(stem + ".bias", out, 0.0f);
    }
    void layerNorm(const std::string& stem, Index d)
    {
        constant(stem + ".weight", d, 1.0f);
        constant(stem + ".bias", d, 0.0f);
    }
    // rows x cols in bfloat16 (the float's upper 16 bits, rounded to nearest even), as the Hub
    // ships 2024-2026 models.
    void randomBf16(const std::string& name, Index rows, Index cols)
    {
        const float a = static_cast<float>(0.02 * std::sqrt(3.0));
        Tensor t;
        t.name = name;
        t.dtype = TensorDtype::BF16;
        t.shape = {static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)};
        t.data.resize(static_cast<std::size_t>(rows * cols) * 2);
        for (std::size_t i = 0; i < static_cast<std::size_t>(rows * cols); ++i) {
            const auto value = static_cast<float>(random_.uniform(-a, a));
            std::uint32_t bits = 0;
            std::memcpy(&bits, &value, 4);
            const auto half = static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
            std::memcpy(t.data.data() + 2 * i, &half, 2);
        }
        file_.tensors.push_back(std::move(t));
    }
    void onesBf16(const std::string& name, Index count)
    {
        Tensor t;
        t.name = name;
        t.dtype = TensorDtype::BF16;
        t.shape = {static_cast<std::size_t>(count)};
        t.data.resize(static_cast<std::size_t>(count) * 2);
        const std::uint16_t one = 0x3f80;  // 1.0 in bfloat16
        for (Index i = 0; i < count; ++i) std::memcpy(t.data.data() + 2 * i, &one, 2);
        file_.tensors.push_back(std::move(t));
    }
    void push(Tensor tensor) { file_.tensors.push_back(std::move(tensor)); }
    SafetensorsFile& file() { return file_; }

private:
    SplitMix64 random_;
    SafetensorsFile file_;
};

SafetensorsFile bertTensors(const SyntheticShape& s)
{
    const Index d = s.d_model;
    TensorBuilder t(18);
    t.random("bert.embeddings.word_embeddings.weight", s.vocabulary, d);
    t.random("bert.embeddings.position_embeddings.weight", s.positions, d);
    t.random("bert.embeddings.token_type_embeddings.weight", 2, d);
    t.layerNorm("bert.embeddings.LayerNorm", d);
    for (Index l = 0; l < s.layers; ++l) {
        const std::string p = "bert.encoder.layer." + std::to_string(l) + ".";
        for (const char* stem :
             {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"})
            t.linear(p + stem, d, d);
        t.layerNorm(p + "attention.output.LayerNorm", d);
        t.linear(p + "intermediate.dense", s.d_ff, d);
        t.linear(p + "output.dense", d, s.d_ff);
        t.layerNorm(p + "output.LayerNorm", d);
    }
    t.linear("cls.predictions.transform.dense", d, d);
    t.layerNorm("cls.predictions.transform.LayerNorm", d);
    t.constant("cls.predictions.bias", s.vocabulary, 0.0f);  // decoder tied to word_embeddings
    return std::move(t.file());
}

// GPT-2's Conv1D stores weight in x out (y = x W + b).
SafetensorsFile gpt2Tensors(const SyntheticShape& s)
{
    const Index d = s.d_model, P = s.positions;
    TensorBuilder t(19);
    t.random("wte.weight", s.vocabulary, d);
    t.random("wpe.weight", P, d);
    MatrixF causal = MatrixF::Zero(s.maskBuffers ? P : 0,
                                   s.maskBuffers ? P : 0);  // the buffer gpt2's file keeps: 1 on and below the diagonal
    causal.triangularView<Eigen::Lower>().setOnes();
    Tensor mask = Tensor::fromMatrix("", causal);
    mask.shape = {1, 1, static_cast<std::size_t>(P), static_cast<std::size_t>(P)};
    for (Index l = 0; l < s.layers; ++l) {
        const std::string p = "h." + std::to_string(l) + ".";
        t.layerNorm(p + "ln_1", d);
        t.random(p + "attn.c_attn.weight", d, 3 * d);
        t.constant(p + "attn.c_attn.bias", 3 * d, 0.0f);
        t.random(p + "attn.c_proj.weight", d, d);
        t.constant(p + "attn.c_proj.bias", d, 0.0f);
        if (s.maskBuffers) {
            mask.name = p + "attn.bias";
            t.push(mask);
        }
        t.layerNorm(p + "ln_2", d);
        t.random(p + "mlp.c_fc.weight", d, s.d_ff);
        t.constant(p + "mlp.c_fc.bias", s.d_ff, 0.0f);
        t.random(p + "mlp.c_proj.weight", s.d_ff, d);
        t.constant(p + "mlp.c_proj.bias", d, 0.0f);
    }
    t.layerNorm("ln_f", d);
    return std::move(t.file());
}

// Qwen3ForCausalLM and LlamaForCausalLM (model.* names, nn.Linear out x in, RMSNorm gamma only,
// SwiGLU, embeddings tied: no lm_head), in bf16.
SafetensorsFile llamaStyleTensors(const SyntheticShape& s)
{
    const Index d = s.d_model, q = s.heads * s.d_k(), kv = s.g() * s.d_k();
    TensorBuilder t(20);
    t.randomBf16("model.embed_tokens.weight", s.vocabulary, d);
    for (Index l = 0; l < s.layers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        t.onesBf16(p + "input_layernorm.weight", d);
        t.randomBf16(p + "self_attn.q_proj.weight", q, d);
        t.randomBf16(p + "self_attn.k_proj.weight", kv, d);
        t.randomBf16(p + "self_attn.v_proj.weight", kv, d);
        t.randomBf16(p + "self_attn.o_proj.weight", d, q);
        if (s.family == SyntheticFamily::Qwen3) {
            t.onesBf16(p + "self_attn.q_norm.weight", s.d_k());
            t.onesBf16(p + "self_attn.k_norm.weight", s.d_k());
        }
        t.onesBf16(p + "post_attention_layernorm.weight", d);
        t.randomBf16(p + "mlp.gate_proj.weight", s.d_ff, d);
        t.randomBf16(p + "mlp.up_proj.weight", s.d_ff, d);
        t.randomBf16(p + "mlp.down_proj.weight", d, s.d_ff);
    }
    t.onesBf16("model.norm.weight", d);
    if (!s.tiedReadout) t.randomBf16("lm_head.weight", s.vocabulary, d);
    return std::move(t.file());
}

}  // namespace

std::string configJson(const SyntheticShape& s)
{
    const auto n = [](Index v) { return std::to_string(v); };
    const std::string llamaStyle = R"(, "hidden_size": )" + n(s.d_model) + R"(, "num_attention_heads": )" + n(s.heads) +
                                   R"(, "num_key_value_heads": )" + n(s.g()) + R"(, "head_dim": )" + n(s.d_k()) +
                                   R"(, "num_hidden_layers": )" + n(s.layers) + R"(, "intermediate_size": )" +
                                   n(s.d_ff) + R"(, "vocab_size": )" + n(s.vocabulary) +
                                   R"(, "max_position_embeddings": )" + n(s.positions) +
                                   R"(, "hidden_act": "silu", "tie_word_embeddings": )" +
                                   (s.tiedReadout ? "true" : "false") + R"(, "torch_dtype": "bfloat16")";
    if (s.family == SyntheticFamily::Qwen3)
        return R"({"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3")" + llamaStyle +
               R"(, "rms_norm_eps": 1e-06, "rope_theta": 1000000, "rope_scaling": null, "attention_bias": false,)"
               R"( "use_sliding_window": false, "sliding_window": null, "bos_token_id": 151643, "eos_token_id": 151645})"
               "\n";
    if (s.family == SyntheticFamily::Llama)
        return R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama")" + llamaStyle +
               R"(, "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "rope_scaling": {"factor": 32.0,)"
               R"( "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192,)"
               R"( "rope_type": "llama3"}, "attention_bias": false, "mlp_bias": false, "bos_token_id": 128000,)"
               R"( "eos_token_id": 128001})"
               "\n";
    if (s.family == SyntheticFamily::Bert)
        return R"({"architectures": ["BertForMaskedLM"], "model_type": "bert", "hidden_size": )" + n(s.d_model) +
               R"(, "num_attention_heads": )" + n(s.heads) + R"(, "num_hidden_layers": )" + n(s.layers) +
               R"(, "intermediate_size": )" + n(s.d_ff) + R"(, "vocab_size": )" + n(s.vocabulary) +
               R"(, "max_position_embeddings": )" + n(s.positions) +
               R"(, "type_vocab_size": 2, "hidden_act": "gelu", "layer_norm_eps": 1e-12, "pad_token_id": 0,)"
               R"( "position_embedding_type": "absolute", "tie_word_embeddings": true})"
               "\n";
    return R"({"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": )" + n(s.d_model) +
           R"(, "n_head": )" + n(s.heads) + R"(, "n_layer": )" + n(s.layers) + R"(, "n_inner": null, "vocab_size": )" +
           n(s.vocabulary) + R"(, "n_positions": )" + n(s.positions) + R"(, "n_ctx": )" + n(s.positions) +
           R"(, "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05, "tie_word_embeddings": true})"
           "\n";
}

std::size_t weightFloats(const SyntheticShape& s)
{
    const auto d = static_cast<std::size_t>(s.d_model), ff = static_cast<std::size_t>(s.d_ff);
    const auto V = static_cast<std::size_t>(s.vocabulary), P = static_cast<std::size_t>(s.positions);
    if (s.family == SyntheticFamily::Qwen3 || s.family == SyntheticFamily::Llama) {
        const auto q = static_cast<std::size_t>(s.heads * s.d_k()), kv = static_cast<std::size_t>(s.g() * s.d_k());
        const std::size_t norms = s.family == SyntheticFamily::Qwen3 ? 2 * static_cast<std::size_t>(s.d_k()) : 0;
        const std::size_t block = 2 * d * q + 2 * d * kv + 3 * d * ff + 2 * d + norms;
        const std::size_t readout = s.tiedReadout ? 0 : V * d;
        return V * d + static_cast<std::size_t>(s.layers) * block + d + readout;  // final norm, untied readout
    }
    const std::size_t block = 4 * (d * d + d) + 2 * d * ff + ff + d + 4 * d;  // attention, MLP, two norms
    std::size_t total = V * d + P * d + static_cast<std::size_t>(s.layers) * block;
    if (s.family == SyntheticFamily::Bert)
        total += 2 * d + 2 * d + d * d + d + 2 * d + V;  // token types, embedding norm, MLM transform, bias
    else
        total += 2 * d;  // ln_f
    return total;
}

Expected<CheckpointFolder> checkpointFolder(const SyntheticShape& shape, const std::string& root)
{
    const fs::path folder = fs::path(root) / shape.name;
    const fs::path model = folder / "model.safetensors";
    CheckpointFolder place{folder.string(), model.string()};
    std::error_code error;
    if (fs::exists(model, error)) {
        place.whole = true;
        return place;
    }
    fs::create_directories(folder, error);
    if (error) return Error{"cannot create " + folder.string() + ": " + error.message()};
    std::ofstream config(folder / "config.json");
    config << configJson(shape);
    if (!config) return Error{"cannot write " + (folder / "config.json").string()};
    return place;
}

Expected<std::string> syntheticCheckpoint(const SyntheticShape& shape, const std::string& root)
{
    Expected<CheckpointFolder> place = checkpointFolder(shape, root);
    if (!place) return Error{place.error()};
    if (place->whole) return place->folder;
    const SafetensorsFile file = shape.family == SyntheticFamily::Bert   ? bertTensors(shape)
                                 : shape.family == SyntheticFamily::Gpt2 ? gpt2Tensors(shape)
                                                                         : llamaStyleTensors(shape);
    if (Status s = writeSafetensors(place->model, file); !s) return Error{s.error()};
    return place->folder;
}

std::string checkpointRoot()
{
    if (const char* root = std::getenv("QKV_BENCH_CHECKPOINTS"); root && *root) return root;
    return (fs::temp_directory_path() / "qkv_pretrained_bench").string();
}

const PretrainedModel* syntheticModel(const SyntheticShape& shape)
{
    static std::map<std::string, std::unique_ptr<PretrainedModel>> models;
    auto& slot = models[shape.name];
    if (slot) return slot.get();
    const Expected<std::string> folder = syntheticCheckpoint(shape, checkpointRoot());
    if (!folder) {
        std::fprintf(stderr, "%s\n", folder.error().c_str());
        return nullptr;
    }
    Expected<PretrainedModel> opened = openPretrainedModel(*folder, {}, WeightResidency::Whole);
    if (!opened) {
        std::fprintf(stderr, "%s\n", opened.error().c_str());
        return nullptr;
    }
    slot = std::make_unique<PretrainedModel>(std::move(*opened));
    return slot.get();
}

}  // namespace qkv::bench
