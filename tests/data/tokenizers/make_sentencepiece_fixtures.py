#!/usr/bin/python3
"""Fixtures for the SentencePiece tokenizers (core/text/sentencepiece_tokenizer.hpp).

Trains three tiny SentencePiece models with Debian's python3-sentencepiece (the same library,
libsentencepiece0, that the C++ code links) on the small English/French text below, lays them
out as the three families ship them, and writes what python3-sentencepiece gives for a list of
sentences, with the special tokens added as Hugging Face's tokenizers add them:

  - llama/   tokenizer.model + tokenizer_config.json: BPE with byte_fallback, identity
             normalisation, whitespace kept, digits split (LLaMA's training options);
             LlamaTokenizer puts <s> (BOS) first (add_bos_token, default true).
  - t5/      spiece.model: unigram with a small custom normalisation table (ﬁ -> fi, Ａ -> A,
             no-break space -> space: T5 and Marian models carry NFKC tables, far too large for
             a fixture), pad 0, </s> 1, <unk> 2 and no BOS, as T5's spiece.model;
             T5Tokenizer appends </s> and adds 100 sentinels <extra_id_0..99> after the pieces
             (<extra_id_N> has the id piece_count + 100 - 1 - N).
  - marian/  source.spm (the same unigram model as t5/), target.spm (a French unigram model)
             and vocab.json, the shared vocabulary MarianTokenizer maps pieces through (not the
             spm models' own ids): "</s>" 0, "<unk>" 1, a language code ">>fr<<", the pieces of
             both models in a seeded shuffled order with a few left out (they map to <unk>'s
             id, as MarianTokenizer's _convert_token_to_id does), "<pad>" last. MarianTokenizer
             appends </s>, and a language code ">>xx<<" at the start of the text is one token.

Hugging Face's slow tokenizers split the text on special tokens typed in it ("</s>", "<unk>",
"<extra_id_3>") before the SentencePiece model sees it, and encode each stretch between them
on its own (legacy=True: each stretch gets its own dummy-prefix "▁"); this script does the same
with the library's encode on each stretch.

Spans are byte offsets into the UTF-8 text. The Python binding reports the library's spans in
characters (ConvertToUnicodeSpans); they are converted back to bytes here. An added <s> spans
[0, 0), an added </s> [len, len).

Run with Debian's Python:
    /usr/bin/python3 tests/data/tokenizers/make_sentencepiece_fixtures.py
Writes, under tests/data/tokenizers/sentencepiece/:
    llama/tokenizer.model llama/tokenizer_config.json t5/spiece.model
    marian/source.spm marian/target.spm marian/vocab.json
    cases.json
"""

import io
import json
import os
import random
import re
import sys

import sentencepiece as spm

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sentencepiece")
assert spm.__version__ == "0.1.97", "the C++ side links Debian 12's libsentencepiece0 0.1.97"

ENGLISH = """\
The cat sat on the mat, and the dog slept under the table.
A small dog ran across the park while the children were playing.
Attention is all you need: queries, keys and values make every head.
Each head looks at the other words of the sentence and takes what it needs.
The model reads the sentence one token at a time and predicts the next word.
We trained the network for three days on two machines with eight cards.
Where is the railway station? It is near the old market, behind the church.
My grandmother bakes bread every morning before the sun rises.
The weather was beautiful yesterday, but today it is raining again.
Translation models learn to align the words of two languages.
She opened the window and listened to the birds singing in the garden.
The teacher explained the lesson slowly so that everyone understood.
Numbers such as 2024, 365 and 42 are split into single digits.
They walked along the river until the evening light turned golden.
The library closes at six o'clock on Saturdays and Sundays.
"""

FRENCH = """\
Le chat est assis sur le tapis, et le chien dort sous la table.
Un petit chien court dans le parc pendant que les enfants jouent.
L'attention est tout ce dont vous avez besoin : requêtes, clés et valeurs.
Chaque tête regarde les autres mots de la phrase et prend ce qu'il lui faut.
Le modèle lit la phrase un jeton à la fois et prédit le mot suivant.
Nous avons entraîné le réseau pendant trois jours sur deux machines.
Où est la gare ? Elle est près du vieux marché, derrière l'église.
Ma grand-mère fait du pain chaque matin avant le lever du soleil.
Il faisait très beau hier, mais aujourd'hui il pleut encore.
Les modèles de traduction apprennent à aligner les mots de deux langues.
Elle a ouvert la fenêtre et a écouté les oiseaux chanter dans le jardin.
Le professeur a expliqué la leçon lentement pour que tout le monde comprenne.
Ils ont marché le long de la rivière jusqu'à ce que la lumière du soir devienne dorée.
La bibliothèque ferme à six heures le samedi et le dimanche.
Noël, été, hôtel, garçon, cœur, naïve, déjà vu.
"""

# The sentences every model encodes: ASCII, accents, CJK, emoji, empty, runs of spaces, a word
# never seen in training, the normalised characters, and special tokens typed in the text.
SENTENCES = [
    "The cat sat on the mat.",
    "Le chat est assis sur le tapis.",
    "Où est la gare ? Très près de l'église.",
    "naïve cœur garçon déjà",
    "猫が好きです",
    "I love 🐈 and 🍕!",
    "",
    " ",
    "  two   spaces  between ",
    "Zyxwvut quokkas jumped",
    "\uFB01ne \uFF21\u00A0word",
    "tab\there\nnewline",
    "2024 was 365 days",
    "the end</s> after",
    "<unk> typed</s>",
    "<s>begin",
    "fill <extra_id_0> and <extra_id_99>.",
    ">>fr<< The cat sleeps.",
    ">>fr<<",
]


def train(sentences, **options):
    """One model, trained in memory; returns its serialised bytes."""
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(sentences), model_writer=out, minloglevel=2,
                                   num_threads=1, **options)
    return out.getvalue()


def byte_span(text, begin, end):
    return [len(text[:begin].encode("utf-8")), len(text[:end].encode("utf-8"))]


def split_on_specials(text, specials):
    """(begin, end, special?) stretches: the leftmost special first, the longest at one place."""
    segments, plain, at = [], 0, 0
    while at < len(text):
        found = max((s for s in specials if text.startswith(s, at)), key=len, default=None)
        if found is None:
            at += 1
            continue
        if at > plain:
            segments.append((plain, at, False))
        segments.append((at, at + len(found), True))
        at += len(found)
        plain = at
    if plain < len(text) or not segments:
        segments.append((plain, len(text), False))
    return segments


def encode(processor, text, specials, special_id, piece_id, add_bos, add_eos, language_code=False):
    """Pieces, ids, byte spans and special flags as the Hugging Face tokenizer gives them."""
    tokens = []  # (piece, id, [begin, end] in bytes, special)
    start = 0
    if language_code:
        # MarianTokenizer.remove_language_code: re.match(">>.+<<", text) at the start.
        match = re.match(">>.+<<", text)
        if match:
            code = match.group(0)
            tokens.append((code, piece_id(code), [0, len(code.encode("utf-8"))], True))
            start = match.end()
    if add_bos:
        tokens.append(("<s>", processor.bos_id(), [0, 0], True))
    for begin, end, special in split_on_specials(text[start:], specials):
        begin, end = begin + start, end + start
        if special:
            piece = text[begin:end]
            tokens.append((piece, special_id(piece), byte_span(text, begin, end), True))
            continue
        for p in processor.encode(text[begin:end], out_type="immutable_proto").pieces:
            tokens.append((p.piece, piece_id(p.piece) if piece_id else p.id,
                           byte_span(text, begin + p.begin, begin + p.end), False))
    if add_eos:
        n = len(text.encode("utf-8"))
        tokens.append(("</s>", special_id("</s>"), [n, n], True))
    return {
        "text": text,
        "pieces": [t[0] for t in tokens],
        "ids": [t[1] for t in tokens],
        "spans": [t[2] for t in tokens],
        "special": [t[3] for t in tokens],
    }


def control_pieces(processor):
    """The pieces typed text is split on: control symbols (<s>, </s>, <pad>) and <unk>."""
    return [processor.id_to_piece(i) for i in range(processor.get_piece_size())
            if processor.is_control(i) or processor.is_unknown(i)]


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def main():
    english = ENGLISH.splitlines()
    french = FRENCH.splitlines()

    llama = train(english + french, model_type="bpe", vocab_size=400, byte_fallback=True,
                  normalization_rule_name="identity", remove_extra_whitespaces=False, split_digits=True,
                  unk_id=0, bos_id=1, eos_id=2, pad_id=-1, character_coverage=0.9995)
    rules = os.path.join(HERE, "rules.tsv.tmp")
    os.makedirs(HERE, exist_ok=True)
    with open(rules, "w", encoding="utf-8") as f:
        f.write("FB01\t66 69\nFF21\t41\nA0\t20\n")
    t5 = train(english + french, model_type="unigram", vocab_size=300, normalization_rule_tsv=rules,
               pad_id=0, eos_id=1, unk_id=2, bos_id=-1)
    target = train(french, model_type="unigram", vocab_size=180, normalization_rule_tsv=rules,
                   pad_id=-1, eos_id=0, unk_id=1, bos_id=-1)
    os.remove(rules)

    write(os.path.join(HERE, "llama", "tokenizer.model"), llama)
    write(os.path.join(HERE, "llama", "tokenizer_config.json"),
          (json.dumps({"add_bos_token": True, "add_eos_token": False, "tokenizer_class": "LlamaTokenizer"},
                      indent=2) + "\n").encode())
    write(os.path.join(HERE, "t5", "spiece.model"), t5)
    write(os.path.join(HERE, "marian", "source.spm"), t5)
    write(os.path.join(HERE, "marian", "target.spm"), target)

    sp_llama = spm.SentencePieceProcessor(model_proto=llama)
    sp_t5 = spm.SentencePieceProcessor(model_proto=t5)
    sp_target = spm.SentencePieceProcessor(model_proto=target)

    # Marian's shared vocabulary: both models' pieces, shuffled, a few left out.
    rng = random.Random(18)
    pieces = sorted({sp.id_to_piece(i) for sp in (sp_t5, sp_target) for i in range(sp.get_piece_size())
                     if not (sp.is_control(i) or sp.is_unknown(i))})
    left_out = {"▁mat", "▁cha", "é"}
    assert left_out <= set(pieces), left_out - set(pieces)
    pieces = [p for p in pieces if p not in left_out]
    rng.shuffle(pieces)
    vocab = {"</s>": 0, "<unk>": 1, ">>fr<<": 2}
    for p in pieces:
        vocab[p] = len(vocab)
    vocab["<pad>"] = len(vocab)
    write(os.path.join(HERE, "marian", "vocab.json"), (json.dumps(vocab, ensure_ascii=False, indent=0) + "\n").encode())

    def marian_id(piece):
        return vocab.get(piece, vocab["<unk>"])

    t5_extra = ["<extra_id_%d>" % i for i in range(100)]

    def t5_id(piece):
        if piece.startswith("<extra_id_"):
            return sp_t5.get_piece_size() + 100 - 1 - int(piece[len("<extra_id_"):-1])
        return sp_t5.piece_to_id(piece)

    marian_specials = ["</s>", "<unk>", "<pad>"]  # MarianTokenizer's special tokens
    cases = {
        "llama": [encode(sp_llama, s, control_pieces(sp_llama), sp_llama.piece_to_id, None, True, False)
                  for s in SENTENCES],
        "t5": [encode(sp_t5, s, control_pieces(sp_t5) + t5_extra, t5_id, None, False, True) for s in SENTENCES],
        "marian_source": [encode(sp_t5, s, marian_specials, marian_id, marian_id, False, True, True)
                          for s in SENTENCES],
        "marian_target": [encode(sp_target, s, marian_specials, marian_id, marian_id, False, True, True)
                          for s in SENTENCES],
        "piece_counts": {"llama": sp_llama.get_piece_size(), "t5": sp_t5.get_piece_size(),
                         "target": sp_target.get_piece_size(), "marian_vocab": len(vocab)},
    }
    write(os.path.join(HERE, "cases.json"), (json.dumps(cases, ensure_ascii=False, indent=1) + "\n").encode())
    for name, data in (("llama", llama), ("t5", t5), ("target", target)):
        print(f"{name}: {len(data)} bytes", file=sys.stderr)
    print(cases["piece_counts"], file=sys.stderr)


if __name__ == "__main__":
    main()
