#!/usr/bin/python3
"""Typed sentences for the synthetic Marian checkpoint in marian/ (make_seq2seq_fixtures.py).

The checkpoint's PyTorch reference ran on fixed ids (marian/reference.json). This writes a
Marian tokenizer for it, so the command line can run the same ids from typed text: the tiny
SentencePiece models of ../tokenizers/sentencepiece/marian (source.spm, target.spm) and a
vocab.json that maps the pieces of two sentences chosen here to exactly the reference's ids
(Marian's ids come from vocab.json, not from the .spm models). The sentences are searched among
short word combinations for the reference's lengths, with pieces distinct within each sentence
and between the two (vocab.json is shared). Output: marian_text/{source.spm, target.spm,
vocab.json, sentences.json}. Run with /usr/bin/python3 (Debian's, with python3-sentencepiece).
"""
import itertools
import json
import os
import shutil

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))
SPM = os.path.join(HERE, "..", "tokenizers", "sentencepiece", "marian")
OUT = os.path.join(HERE, "marian_text")
WORDS = ["the", "cat", "dog", "sleeps", "runs", "a", "le", "chat", "chien", "dort", "court", "un", "bien",
         "vite", "noir", "red", "big", "small", "on", "mat"]

reference = json.load(open(os.path.join(HERE, "marian", "reference.json")))
config = json.load(open(os.path.join(HERE, "marian", "config.json")))
eos, pad = config["eos_token_id"], config["pad_token_id"]
source_ids = reference["source_ids"][:-1]  # the tokenizer appends </s>
target_ids = reference["target_ids"][:-1]
assert reference["source_ids"][-1] == eos and reference["target_ids"][-1] == eos

source_model = spm.SentencePieceProcessor(model_file=os.path.join(SPM, "source.spm"))
target_model = spm.SentencePieceProcessor(model_file=os.path.join(SPM, "target.spm"))


def find(model, count, taken):
    for length in (1, 2, 3):
        for words in itertools.permutations(WORDS, length):
            text = " ".join(words)
            pieces = model.encode(text, out_type=str)
            if len(pieces) == count and len(set(pieces)) == count and not set(pieces) & taken:
                return text, pieces
    raise SystemExit("no sentence of %d distinct pieces" % count)


source_text, source_pieces = find(source_model, len(source_ids), set())
target_text, target_pieces = find(target_model, len(target_ids), set(source_pieces))
vocab = {"</s>": eos, "<pad>": pad}
used = set(vocab.values()) | set(source_ids) | set(target_ids)
vocab["<unk>"] = min(i for i in range(config["vocab_size"]) if i not in used)
vocab.update(zip(source_pieces, source_ids))
vocab.update(zip(target_pieces, target_ids))
assert len(set(vocab.values())) == len(vocab)

os.makedirs(OUT, exist_ok=True)
for name in ("source.spm", "target.spm"):
    shutil.copyfile(os.path.join(SPM, name), os.path.join(OUT, name))
with open(os.path.join(OUT, "vocab.json"), "w") as f:
    json.dump(vocab, f, ensure_ascii=False, indent=1, sort_keys=True)
with open(os.path.join(OUT, "sentences.json"), "w") as f:
    json.dump({"source": source_text, "target": target_text, "source_pieces": source_pieces,
               "target_pieces": target_pieces}, f, ensure_ascii=False, indent=1)
print(source_text, source_pieces, "|", target_text, target_pieces)
