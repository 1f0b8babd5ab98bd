#!/usr/bin/python3
"""A Unigram tokenizer.json with reference ids from SentencePiece itself.

No real Unigram tokenizer.json (T5, ALBERT, XLM-R) could be found on the npm registry, and theirs
carry a "Precompiled" normalizer (SentencePiece's NFKC table), which the reader refuses by name.
So this script trains a small unigram model with Debian's python3-sentencepiece (identity
normalisation, byte fallback, whitespace kept), writes it out as tokenizer.json the way
transformers' convert_slow_tokenizer lays out a SentencePiece unigram model (model Unigram with
[piece, score] pairs, unk_id and byte_fallback; Metaspace "▁" with prepend_scheme "always";
</s> appended by TemplateProcessing, as T5 does), and records what the SentencePiece library
gives for the sentences below (its ids, then </s>).

Run with Debian's Python:
    /usr/bin/python3 tests/data/tokenizers/tokenizer_json/make_unigram_fixture.py
Writes unigram/tokenizer.json and unigram/cases.json beside this script.
"""

import io
import json
import os
import sys

import sentencepiece as spm

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "unigram")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from make_sentencepiece_fixtures import ENGLISH, FRENCH  # noqa: E402  (the same training text)

SENTENCES = [
    "The cat sat on the mat.",
    "Le chat est assis sur le tapis.",
    "Où est la gare ? Très près de l'église.",
    "naïve cœur garçon déjà",
    "猫が好きです",
    "I love 🐈 and 🍕!",
    "",
    "Zyxwvut quokkas jumped",
    "2024 was 365 days",
    "attention heads",
    # A stretch after a typed special token that begins with a space is left out: SentencePiece
    # always adds its dummy "▁", the fast tokenizer's Metaspace only where none is there.
    "the end</s>after",
]


def main():
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter((ENGLISH + FRENCH).splitlines()), model_writer=out,
                                   minloglevel=2, num_threads=1, model_type="unigram", vocab_size=420,
                                   byte_fallback=True, normalization_rule_name="identity",
                                   remove_extra_whitespaces=False, pad_id=0, eos_id=1, unk_id=2, bos_id=-1)
    processor = spm.SentencePieceProcessor(model_proto=out.getvalue())
    pieces = [[processor.id_to_piece(i), processor.get_score(i)] for i in range(processor.get_piece_size())]
    eos = processor.piece_to_id("</s>")
    tokenizer = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": i, "content": processor.id_to_piece(i), "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
            for i in range(processor.get_piece_size()) if processor.is_control(i) or processor.is_unknown(i)
        ],
        "normalizer": None,
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "</s>", "type_id": 1}}],
            "special_tokens": {"</s>": {"id": "</s>", "ids": [eos], "tokens": ["</s>"]}},
        },
        "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": processor.unk_id(), "vocab": pieces, "byte_fallback": True},
    }
    cases = []
    for text in SENTENCES:
        # Typed special tokens are matched first; each stretch between them is encoded alone.
        ids, at = [], 0
        for part in text.split("</s>"):
            ids += processor.encode(part) if part else []
            at += len(part)
            if at < len(text):
                ids.append(eos)
                at += len("</s>")
        ids.append(eos)
        cases.append({"text": text, "ids": ids, "tokens": [processor.id_to_piece(i) for i in ids]})
    os.makedirs(HERE, exist_ok=True)
    with open(os.path.join(HERE, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer, f, ensure_ascii=False)
    with open(os.path.join(HERE, "cases.json"), "w", encoding="utf-8") as f:
        f.write("[\n" + ",\n".join(json.dumps(c, ensure_ascii=False) for c in cases) + "\n]\n")


if __name__ == "__main__":
    main()
