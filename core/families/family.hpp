#pragma once
// The families of models this app reads, one enumeration: every value has one row in kFamilyRows
// (family_table.hpp), which says its tensor names, norms, positions, activation and quirks.
//
// Some rows are layer families too: their attention modules carry names of their own (BERT,
// DistilBERT, GPT-2, LLaMA-style, BART/Marian, T5, nn.MultiheadAttention, Phi-3, GPT-NeoX), and a
// layer recognised in a checkpoint names one of those (CheckpointLayer::family). The others share
// a layer family's attention names (RoBERTa's are BERT's, Marian's BART's, Qwen3's, Gemma's and
// OLMo 2's LLaMA's) and differ elsewhere in the model: their row's `layers` names whose.

#include <string_view>

namespace qkv {

enum class Family {
    Bert,
    Roberta,
    DistilBert,
    Gpt2,
    Llama,
    Qwen3,
    Bart,
    Marian,
    T5,
    PyTorch,  // nn.MultiheadAttention state dicts (a layer family only)
    Gemma2,
    Gemma3,
    Phi3,
    GptNeox,
    Olmo2,
    Trained,  // a model trained in this app (core/pretrained/trained_model_recipe.hpp), never a checkpoint's
};

// "BERT", "Qwen3", "Gemma 3": the row's name, as config.json's model_type names the model.
std::string_view familyName(Family family);
// The name of the layers a layer family recognises ("BART/Marian" for Family::Bart; else
// familyName), as messages, notes and the app's layer list print them.
std::string_view layerFamilyName(Family family);

}  // namespace qkv
