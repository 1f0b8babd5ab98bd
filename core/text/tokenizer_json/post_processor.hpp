#pragma once
// tokenizer.json's "post_processor": the special tokens put around one sentence (Hugging Face
// tokenizers, processors/): TemplateProcessing's "single" template, BertProcessing ([CLS] ...
// [SEP]), RobertaProcessing (<s> ... </s>), ByteLevel (adds none) and Sequence. Any other type
// is refused by name. For the LLaMA, Gemma, CodeLlama and Cohere tokenizer classes,
// tokenizer_config.json's add_bos_token / add_eos_token, where set, decide instead (transformers
// rebuilds their template from them), with its bos_token / eos_token.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/common/expected.hpp"

namespace qkv::tokenizer_json {

struct MarkToken {
    std::int32_t id = 0;
    std::string piece;
};

struct SentenceMarks {
    std::vector<MarkToken> before;  // e.g. <|begin_of_text|>, [CLS]
    std::vector<MarkToken> after;   // e.g. [SEP], </s>
    std::string source;             // "post_processor TemplateProcessing", "tokenizer_config.json add_bos_token"
};

using IdOf = std::function<std::optional<std::int32_t>(const std::string&)>;

// The marks the file's post-processor adds (it names their ids itself).
Expected<SentenceMarks> parsePostProcessor(const nlohmann::json& spec);

// tokenizer_config.json's add_bos_token / add_eos_token, when it sets either: the marks they ask
// for, their ids found by `idOf` (the model's vocabulary and the added tokens). Nothing when it
// sets neither (the post-processor decides).
Expected<std::optional<SentenceMarks>> configuredMarks(const nlohmann::json& config, const IdOf& idOf);

}  // namespace qkv::tokenizer_json
