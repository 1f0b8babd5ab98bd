#!/usr/bin/python3
"""A LLaMA-3-style tokenizer.json for the synthetic LLaMA checkpoint (llama/, 40 token ids).

LLaMA 3 ships only tokenizer.json: byte-level BPE behind LLaMA 3's Split regex, ignore_merges,
<|begin_of_text|> from a TemplateProcessing post-processor. This writes one of the same form
with 40 entries, laid out so that the reference sentence below gives the ids the checkpoint's
PyTorch reference was computed on (llama/reference.json: [1, 7, 23, 5, 39, 12, 30, 2]); so the
app, reading the folder with only this tokenizer.json beside the weights, must reproduce the
reference attention and logits from typed text. The template also appends <|end_of_text|>
(the reference ends with id 2), which real LLaMA 3 files do not.

The ids were checked with Hugging Face's own library (the `tokenizers` npm package 0.23.2, its
Rust core): Tokenizer.fromFile("llama_text/tokenizer.json").encode(SENTENCE).ids.

Run: /usr/bin/python3 tests/data/pretrained/make_llama_tokenizer_json.py
Writes llama_text/tokenizer.json, llama_text/tokenizer_config.json, llama_text/sentences.json.
"""

import json
import os

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "llama_text")
SENTENCE = "The cat sat on a mat"
LLAMA3_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                r"|\s*[\r\n]+|\s+(?!\S)|\s+")

VOCAB = ["<unk>", "<|begin_of_text|>", "<|end_of_text|>", "\u0120", "a", "\u0120sat", "c", "The", "t", "h",
         "e", "s", "\u0120a", "o", "n", "m", "T", ".", "i", "r",
         "d", "g", "\u0120c", "\u0120cat", "\u0120t", "\u0120the", "\u0120s", "\u0120m", "at", "\u0120o",
         "\u0120mat", "\u0120d", "\u0120dog", "og", "l", "p", "u", "w", "y", "\u0120on"]
MERGES = [["a", "t"], ["\u0120", "c"], ["\u0120c", "at"], ["\u0120", "s"], ["\u0120s", "at"], ["\u0120", "m"],
          ["\u0120m", "at"], ["\u0120", "a"], ["\u0120", "o"], ["\u0120o", "n"], ["o", "g"], ["\u0120", "d"],
          ["\u0120d", "og"], ["\u0120", "t"]]


def special(token_id, content):
    return {"id": token_id, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": False, "special": True}


def main():
    assert len(VOCAB) == 40 and len(set(VOCAB)) == 40
    vocab = {token: i for i, token in enumerate(VOCAB)}
    for left, right in MERGES:
        assert left in vocab and right in vocab and left + right in vocab, (left, right)
    tokenizer = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [special(1, "<|begin_of_text|>"), special(2, "<|end_of_text|>")],
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": LLAMA3_SPLIT}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]},
        "post_processor": {"type": "Sequence", "processors": [
            {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
            {"type": "TemplateProcessing",
             "single": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                        {"SpecialToken": {"id": "<|end_of_text|>", "type_id": 0}}],
             "pair": [{"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                      {"Sequence": {"id": "B", "type_id": 1}}],
             "special_tokens": {"<|begin_of_text|>": {"id": "<|begin_of_text|>", "ids": [1], "tokens": ["<|begin_of_text|>"]},
                                "<|end_of_text|>": {"id": "<|end_of_text|>", "ids": [2], "tokens": ["<|end_of_text|>"]}}}]},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": True,
                  "vocab": vocab, "merges": MERGES},
    }
    config = {"bos_token": "<|begin_of_text|>", "eos_token": "<|end_of_text|>", "model_max_length": 64,
              "tokenizer_class": "PreTrainedTokenizerFast"}
    os.makedirs(HERE, exist_ok=True)
    with open(os.path.join(HERE, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer, f, ensure_ascii=False, indent=1)
    with open(os.path.join(HERE, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=1)
    with open(os.path.join(HERE, "sentences.json"), "w", encoding="utf-8") as f:
        json.dump({"target": SENTENCE, "ids": [1, 7, 23, 5, 39, 12, 30, 2],
                   "pieces": ["<|begin_of_text|>", "The", "\u0120cat", "\u0120sat", "\u0120on", "\u0120a", "\u0120mat",
                              "<|end_of_text|>"],
                   # What a reader sees (and the export writes): a space as "·", as the decoder reads "Ġ".
                   "shown": ["<|begin_of_text|>", "The", "\u00b7cat", "\u00b7sat", "\u00b7on", "\u00b7a", "\u00b7mat",
                             "<|end_of_text|>"]}, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
