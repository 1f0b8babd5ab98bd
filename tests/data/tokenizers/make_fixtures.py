#!/usr/bin/python3
"""Fixtures for the subword tokenizers and the model inputs (core/text, core/embedding).

An independent Python implementation, written from the Hugging Face / OpenAI descriptions and
not from the C++ code:
  - BERT's BasicTokenizer + WordpieceTokenizer (the fast tokenizer's semantics: lower-casing one
    character at a time, no NFC, strip accents = NFD then drop Mn), with [CLS] ... [SEP];
  - GPT-2's byte-level BPE: bytes_to_unicode, the pre-token pattern run by Python's own regex
    engine (re) with \\p{L}, \\p{N} and \\s spelled out as character classes from unicodedata,
    and the original bpe() loop (merge every occurrence of the lowest-ranked pair);
  - a byte-level BPE vocabulary learned here from a small corpus (merges.txt, vocab.json);
  - X = LayerNorm(word[ids] + position[0..n-1] + type[0]) (BERT) and ln_1(wte[ids] + wpe[0..n-1])
    (GPT-2) in float64 with NumPy, stored as float32.

Run with Debian's Python (NumPy; the Unicode database is Python 3.11's, Unicode 14.0, the same
version core/text/make_unicode_tables.py used):
    /usr/bin/python3 tests/data/tokenizers/make_fixtures.py
Writes, next to this script:
    wordpiece_vocab.txt, bpe_vocab.json, bpe_merges.txt      the tokenizer files
    cases.json                                               sentences, ids, pieces, spans
    bert_word.npy bert_position.npy bert_type.npy bert_gamma.npy bert_beta.npy
    gpt2_wte.npy gpt2_wpe.npy gpt2_gamma.npy gpt2_beta.npy   tiny embedding tables
    bert_x.npy gpt2_x.npy                                    every case's X, stacked by rows
    unicode_samples.json                                     categories of sampled code points
"""

import codecs
import json
import os
import random
import re
import sys
import unicodedata

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
assert unicodedata.unidata_version == "14.0.0", "regenerate core/text/unicode_tables.inc with the same Python"

# ---------------------------------------------------------------------------------------------
# Unicode facts, straight from unicodedata.

# The White_Space property (Unicode PropList.txt); what \s means in the regex engines GPT-2's
# tokenizers use, and what str.split() breaks at (less U+001C..U+001F, removed by cleaning).
WHITE_SPACE = set([0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680] + list(range(0x2000, 0x200B)) +
                  [0x2028, 0x2029, 0x202F, 0x205F, 0x3000])


def category(ch):
    return unicodedata.category(ch)


def byte_spans(text):
    """Byte offset of each character of text, plus the total."""
    offsets = [0]
    for ch in text:
        offsets.append(offsets[-1] + len(ch.encode("utf-8")))
    return offsets


def split_specials(text, specials):
    """[(start, end, special_or_None)] in characters: leftmost occurrence, longest at one start."""
    out, plain, i = [], 0, 0
    while i < len(text):
        hits = [s for s in specials if text.startswith(s, i)]
        if not hits:
            i += 1
            continue
        s = max(hits, key=len)
        if i > plain:
            out.append((plain, i, None))
        out.append((i, i + len(s), s))
        i += len(s)
        plain = i
    if plain < len(text) or not out:
        out.append((plain, len(text), None))
    return out


# ---------------------------------------------------------------------------------------------
# BERT: BasicTokenizer + WordpieceTokenizer.

def bert_is_control(ch):
    if ch in "\t\n\r":
        return False
    return category(ch).startswith("C")


def bert_is_whitespace(ch):
    return ch in " \t\n\r" or category(ch) == "Zs"


def bert_is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return category(ch).startswith("P")


def bert_is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF or
            0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF or
            0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def strip_accents(text):
    return "".join(c for c in unicodedata.normalize("NFD", text) if category(c) != "Mn")


def bert_basic(chars, lower, strip):
    """chars: [(ch, byte_begin, byte_end)]. Returns words as lists of (ch, begin, end)."""
    # Clean: drop NUL, U+FFFD and controls; whitespace becomes " " (no span needed).
    cleaned = []
    for ch, b, e in chars:
        if ord(ch) == 0 or ord(ch) == 0xFFFD or bert_is_control(ch):
            continue
        cleaned.append((" ", b, e) if bert_is_whitespace(ch) else (ch, b, e))
    # Spaces around CJK ideographs.
    spaced = []
    for ch, b, e in cleaned:
        if bert_is_cjk(ord(ch)):
            spaced += [(" ", b, b), (ch, b, e), (" ", e, e)]
        else:
            spaced.append((ch, b, e))
    # Split on whitespace (str.split: White_Space, after the cleaning).
    words, current = [], []
    for item in spaced:
        if ord(item[0]) in WHITE_SPACE:
            if current:
                words.append(current)
            current = []
        else:
            current.append(item)
    if current:
        words.append(current)

    out = []
    for word in words:
        plain = "".join(ch for ch, _, _ in word)
        normalised = []
        for ch, b, e in word:
            pieces = ch.lower() if lower else ch
            if strip:
                pieces = strip_accents(pieces)
            if not pieces:
                if normalised:  # a removed accent joins the character before it
                    c0, b0, _ = normalised[-1]
                    normalised[-1] = (c0, b0, e)
                continue
            normalised += [(p, b, e) for p in pieces]
        # Character by character must agree with the whole word (canonical reordering aside).
        whole = plain
        if lower:
            whole = "".join(c.lower() for c in whole)
        if strip:
            whole = strip_accents(whole)
        assert "".join(c for c, _, _ in normalised) == whole, (plain, whole)
        # Split punctuation.
        current = []
        for item in normalised:
            if bert_is_punctuation(item[0]):
                if current:
                    out.append(current)
                out.append([item])
                current = []
            else:
                current.append(item)
        if current:
            out.append(current)
    return out


def wordpiece(word, vocab, max_chars=100):
    """word: [(ch, begin, end)]. Returns [(piece, begin, end)]."""
    text = "".join(ch for ch, _, _ in word)
    if len(text) > max_chars:
        return [("[UNK]", word[0][1], word[-1][2])]
    pieces, start = [], 0
    while start < len(text):
        end = len(text)
        found = None
        while start < end:
            candidate = ("##" if start > 0 else "") + text[start:end]
            if candidate in vocab:
                found = candidate
                break
            end -= 1
        if found is None:
            return [("[UNK]", word[0][1], word[-1][2])]
        pieces.append((found, word[start][1], word[end - 1][2]))
        start = end
    return pieces


BERT_SPECIALS = ["[UNK]", "[SEP]", "[PAD]", "[CLS]", "[MASK]"]


def bert_tokenize(text, vocab, lower=True, strip=None):
    strip = lower if strip is None else strip
    offsets = byte_spans(text)
    specials = [s for s in BERT_SPECIALS if s in vocab]
    tokens = [("[CLS]", 0, 0, True)]
    for start, end, special in split_specials(text, specials):
        if special:
            tokens.append((special, offsets[start], offsets[end], True))
            continue
        chars = [(text[i], offsets[i], offsets[i + 1]) for i in range(start, end)]
        for word in bert_basic(chars, lower, strip):
            tokens += [(p, b, e, False) for p, b, e in wordpiece(word, vocab)]
    tokens.append(("[SEP]", offsets[-1], offsets[-1], True))
    return {
        "ids": [vocab[t[0]] for t in tokens],
        "pieces": [t[0] for t in tokens],
        "spans": [[t[1], t[2]] for t in tokens],
        "special": [t[3] for t in tokens],
    }


# ---------------------------------------------------------------------------------------------
# GPT-2: byte-level BPE.

def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\u00a1"), ord("\u00ac") + 1)) + \
        list(range(ord("\u00ae"), ord("\u00ff") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


BYTE_ENCODER = bytes_to_unicode()
BYTE_DECODER = {v: k for k, v in BYTE_ENCODER.items()}


def class_items(predicate):
    """A regex character-class body for the code points where predicate(ch) holds."""
    items, start = [], None
    for cp in range(0x110001):
        inside = cp <= 0x10FFFF and predicate(cp)
        if inside and start is None:
            start = cp
        elif not inside and start is not None:
            items.append("\\U%08x-\\U%08x" % (start, cp - 1))
            start = None
    return "".join(items)


def gpt2_pattern():
    letters = class_items(lambda cp: category(chr(cp)).startswith("L"))
    numbers = class_items(lambda cp: category(chr(cp)).startswith("N"))
    spaces = class_items(lambda cp: cp in WHITE_SPACE)
    pattern = (r"'s|'t|'re|'ve|'m|'ll|'d| ?[L]+| ?[N]+| ?[^SLN]+|[S]+(?![^S])|[S]+")
    pattern = pattern.replace("L", letters).replace("N", numbers).replace("S", spaces)
    return re.compile(pattern)


GPT2_PATTERN = gpt2_pattern()


def bpe(symbols, ranks):
    """GPT-2's bpe(): merge all occurrences of the lowest-ranked pair until none has a rank."""
    word = list(symbols)
    while len(word) > 1:
        pairs = set(zip(word, word[1:]))
        best = min(pairs, key=lambda p: ranks.get(p, float("inf")))
        if best not in ranks:
            break
        first, second = best
        merged, i = [], 0
        while i < len(word):
            if i < len(word) - 1 and word[i] == first and word[i + 1] == second:
                merged.append(first + second)
                i += 2
            else:
                merged.append(word[i])
                i += 1
        word = merged
    return word


def display_error_handler(error):
    bad = error.object[error.start:error.end]
    return ("".join("<0x%02X>" % b for b in bad), error.end)


codecs.register_error("qkv_hex", display_error_handler)


def display(piece):
    if any(c not in BYTE_DECODER for c in piece):
        return piece
    text = bytes(BYTE_DECODER[c] for c in piece).decode("utf-8", errors="qkv_hex")
    out = []
    for c in text:
        if c == " ":
            out.append("\u00b7")
        elif c == "\n":
            out.append("\u21b5")
        elif c == "\t":
            out.append("\u2192")
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append("<0x%02X>" % ord(c))
        else:
            out.append(c)
    return "".join(out)


def gpt2_tokenize(text, vocab, ranks):
    offsets = byte_spans(text)
    specials = [s for s in ["<|endoftext|>"] if s in vocab]
    tokens = []
    for start, end, special in split_specials(text, specials):
        if special:
            tokens.append((special, offsets[start], offsets[end], True))
            continue
        for match in GPT2_PATTERN.finditer(text, start, end):
            # Each byte remembers its character, so a token's span covers whole characters.
            byte_chars = []
            for i in range(match.start(), match.end()):
                byte_chars += [i] * len(text[i].encode("utf-8"))
            symbols = [BYTE_ENCODER[b] for b in match.group().encode("utf-8")]
            at = 0
            for piece in bpe(symbols, ranks):
                first, last = byte_chars[at], byte_chars[at + len(piece) - 1]
                tokens.append((piece, offsets[first], offsets[last + 1], False))
                at += len(piece)
    return {
        "ids": [vocab[t[0]] for t in tokens],
        "pieces": [t[0] for t in tokens],
        "display": [display(t[0]) if not t[3] else t[0] for t in tokens],
        "spans": [[t[1], t[2]] for t in tokens],
        "special": [t[3] for t in tokens],
    }


def learn_bpe(corpus, merge_count):
    """Classic BPE training over GPT-2 pre-tokens: merge the most frequent adjacent pair (ties:
    the smallest pair), merge_count times or until no pair occurs twice."""
    words = {}
    for match in GPT2_PATTERN.finditer(corpus):
        key = tuple(BYTE_ENCODER[b] for b in match.group().encode("utf-8"))
        words[key] = words.get(key, 0) + 1
    merges = []
    while len(merges) < merge_count:
        counts = {}
        for word, freq in words.items():
            for pair in zip(word, word[1:]):
                counts[pair] = counts.get(pair, 0) + freq
        if not counts:
            break
        best = min(counts, key=lambda p: (-counts[p], p))
        if counts[best] < 2:
            break
        merges.append(best)
        merged = {}
        for word, freq in words.items():
            new = bpe_apply_one(word, best)
            merged[new] = merged.get(new, 0) + freq
        words = merged
    return merges


def bpe_apply_one(word, pair):
    out, i = [], 0
    while i < len(word):
        if i < len(word) - 1 and (word[i], word[i + 1]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Model inputs.

def layer_norm(x, gamma, beta, eps):
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)  # biased
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def bert_input(ids, word, position, token_type, gamma, beta, eps):
    x = word.astype(np.float64)[ids] + position.astype(np.float64)[: len(ids)] + token_type.astype(np.float64)[0]
    return layer_norm(x, gamma.astype(np.float64), beta.astype(np.float64), eps).astype(np.float32)


def gpt2_input(ids, wte, wpe, gamma, beta, eps):
    x = wte.astype(np.float64)[ids] + wpe.astype(np.float64)[: len(ids)]
    return layer_norm(x, gamma.astype(np.float64), beta.astype(np.float64), eps).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# The data.

WORDPIECE_VOCAB = (
    ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] +
    list(".,!?'\"-():;«»…—[]{}@#$%^_~×=/") +
    list("0123456789") + ["##" + d for d in "0123456789"] +
    list("abcdefghijklmnopqrstuvwxyz") + ["##" + c for c in "abcdefghijklmnopqrstuvwxyz"] +
    ["the", "cat", "sat", "on", "mat", "hello", "world", "how", "are", "you", "love", "pizza",
     "so", "much", "super", "##cal", "##if", "##rag", "##il", "##istic", "eleve", "mange", "une",
     "creme", "brul", "##ee", "noel", "groß", "##ß", "uber", "##ma", "und", "apfel", "schon",
     "in", "is", "it", "##ing", "##ed", "play", "un", "##aff", "##able", "they", "##ll", "say",
     "don", "think", "john", "quoi", "dit", "il", "vrai", "##ment", "ok", "home", "tag", "istanbul",
     "cafe", "naive", "ελ", "##λη", "##νικα", "και", "русский", "текст", "我", "爱", "语", "ひ",
     "The", "Hello", "I", "##é", "é", "zero", "##width", "soft", "##hyphen", "bell", "nb", "##sp",
     "here", "two", "spaces", "and", "tab", "new", "line", "end", "big", "##ger", "ᄒ", "##ᅡ", "##ᆫ"]
)

CORPUS = """
The cat sat on the mat. The cat is on the mat, and the dog is not. Hello world! Hello there,
world. How are you? I love pizza so much. They'll say it's John's, don't you think? We're here,
you've seen it, I'm sure, I'd say so. The quick brown fox jumps over the lazy dog. The the the.
In 2024, 3.14 times 10 is 31.4; in 1999 it was 42. Numbers: 1234567890 and 100000.
L'élève a mangé une crème brûlée à Noël. Où est la bibliothèque? C'est très intéressant.
Größe, Übermaß und Äpfel, schön! Die Straße ist lang. Über alles. Schöne Grüße.
   Spaces   and	tabs
and new lines.  Hello  hello   hello.
Supercalifragilisticexpialidocious is a long word. Pizza, pizza, pizza! Super, super.
Ελληνικά και ελληνικά. Русский текст и русский язык. 我爱自然语言处理。我爱你。
Pizza 🍕 and a smile 😀, a smile 😀 and pizza 🍕. İstanbul, Istanbul.
"""

SENTENCES = [
    "The cat sat on the mat.",
    "Hello, world! How are you?",
    "L'élève a mangé une crème brûlée à Noël.",
    "Größe, Übermaß und Äpfel – schön!",
    "In 2024, 3.14 × 10 = 31.4",
    "  two  spaces\tand\ttabs\n\nnew lines   ",
    "I love pizza 🍕 so much 😀!",
    "Supercalifragilistic" * 6 + " end",
    "我爱自然语言处理。ひらがな",
    "I'm sure they'll say it's John's, don't you think? I'D",
    "The [MASK] sat on [SEP] the mat <|endoftext|> end",
    "Ελληνικά και русский текст",
    "zero\u200bwidth soft\u00adhyphen bell\u0007 nb\u00a0sp here",
    "cafe\u0301 nai\u0308ve é\u0301!\u0301 x",
    "한국어",
    "«Quoi?» — dit-il… (vraiment!) [ok] {x} @home #tag $5 ~50% ^_^",
    "٣ ४ ５ ½ Ⅻ",
    "İstanbul",
    "line\u2028separator\u2029paragraph",
    "",
    "   ",
    "a\u000cb\u000bc\r\nd",
    "Hello world",
    " Hello world",
]

# Cased WordPiece (do_lower_case = False) on these; accents and capitals stay.
CASED = {0, 1, 2, 6, 13, 17}


def main():
    rng = np.random.default_rng(20240611)

    # WordPiece files and tables.
    assert len(set(WORDPIECE_VOCAB)) == len(WORDPIECE_VOCAB), "duplicate in the WordPiece vocabulary"
    wp_vocab = {t: i for i, t in enumerate(WORDPIECE_VOCAB)}
    with open(os.path.join(HERE, "wordpiece_vocab.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(WORDPIECE_VOCAB) + "\n")

    # Byte-level BPE files.
    merges = learn_bpe(CORPUS * 2, 400)  # twice, so that every pair occurs at least twice
    # GPT-2's order: the byte symbols by code point (the printable bytes, then U+0100...), then
    # each merge's result, then <|endoftext|>.
    bpe_tokens = sorted(BYTE_ENCODER.values(), key=ord)
    for a, b in merges:
        if a + b not in bpe_tokens:
            bpe_tokens.append(a + b)
    bpe_tokens.append("<|endoftext|>")
    bpe_vocab = {t: i for i, t in enumerate(bpe_tokens)}
    ranks = {pair: i for i, pair in enumerate(merges)}
    with open(os.path.join(HERE, "bpe_vocab.json"), "w", encoding="utf-8") as f:
        json.dump(bpe_vocab, f, ensure_ascii=False)
    with open(os.path.join(HERE, "bpe_merges.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("#version: 0.2\n" + "".join("%s %s\n" % pair for pair in merges))

    d_model = 8
    bert_tables = {
        "word": rng.normal(0, 0.5, (len(WORDPIECE_VOCAB), d_model)).astype(np.float32),
        "position": rng.normal(0, 0.5, (64, d_model)).astype(np.float32),
        "type": rng.normal(0, 0.5, (2, d_model)).astype(np.float32),
        "gamma": (1 + 0.1 * rng.normal(size=d_model)).astype(np.float32),
        "beta": (0.1 * rng.normal(size=d_model)).astype(np.float32),
    }
    gpt2_tables = {
        "wte": rng.normal(0, 0.5, (len(bpe_tokens), d_model)).astype(np.float32),
        "wpe": rng.normal(0, 0.5, (128, d_model)).astype(np.float32),
        "gamma": (1 + 0.1 * rng.normal(size=d_model)).astype(np.float32),
        "beta": (0.1 * rng.normal(size=d_model)).astype(np.float32),
    }
    for name, array in bert_tables.items():
        np.save(os.path.join(HERE, "bert_%s.npy" % name), array)
    for name, array in gpt2_tables.items():
        np.save(os.path.join(HERE, "gpt2_%s.npy" % name), array)
    bert_eps, gpt2_eps = 1e-12, 1e-5

    cases, bert_rows, gpt2_rows = [], [], []
    bert_offset = gpt2_offset = 0
    for k, text in enumerate(SENTENCES):
        case = {"text": text, "bert": bert_tokenize(text, wp_vocab)}
        if k in CASED:
            case["bert_cased"] = bert_tokenize(text, wp_vocab, lower=False)
        case["gpt2"] = gpt2_tokenize(text, bpe_vocab, ranks)
        assert "".join(case["gpt2"]["pieces"]) == "".join(BYTE_ENCODER[b] for b in text.encode("utf-8")) or \
            "<|endoftext|>" in text, "byte-level BPE must keep every byte"

        ids = case["bert"]["ids"]
        assert len(ids) <= 64
        bert_rows.append(bert_input(ids, bert_tables["word"], bert_tables["position"], bert_tables["type"],
                                    bert_tables["gamma"], bert_tables["beta"], bert_eps))
        case["bert"]["x_rows"] = [bert_offset, bert_offset + len(ids)]
        bert_offset += len(ids)

        ids = case["gpt2"]["ids"]
        assert len(ids) <= 128
        if ids:
            gpt2_rows.append(gpt2_input(ids, gpt2_tables["wte"], gpt2_tables["wpe"], gpt2_tables["gamma"],
                                        gpt2_tables["beta"], gpt2_eps))
        case["gpt2"]["x_rows"] = [gpt2_offset, gpt2_offset + len(ids)]
        gpt2_offset += len(ids)
        cases.append(case)

    np.save(os.path.join(HERE, "bert_x.npy"), np.concatenate(bert_rows).astype(np.float32))
    np.save(os.path.join(HERE, "gpt2_x.npy"), np.concatenate(gpt2_rows).astype(np.float32))
    with open(os.path.join(HERE, "cases.json"), "w", encoding="ascii") as f:
        json.dump({"bert_layer_norm_eps": bert_eps, "gpt2_layer_norm_epsilon": gpt2_eps,
                   "bpe_merge_count": len(merges), "cases": cases}, f, ensure_ascii=True, indent=1)
        f.write("\n")

    # Unicode samples: every code point below U+0800, and a seeded sample of the rest.
    sample = list(range(0x800))
    pick = random.Random(7)
    sample += sorted(set(pick.randrange(0x800, 0x110000) for _ in range(6000)))
    sample += [0xAC00, 0xAC01, 0xD7A3, 0x1F355, 0x1F600, 0x2028, 0x2029, 0x3000, 0xFEFF, 0x200B, 0x130, 0x212B]
    rows = []
    for cp in sorted(set(sample)):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        c = category(ch)
        single_lower = ch.lower()
        rows.append([cp, c, [ord(x) for x in single_lower],
                     [ord(x) for x in strip_accents(ch)], int(cp in WHITE_SPACE)])
    with open(os.path.join(HERE, "unicode_samples.json"), "w", encoding="ascii") as f:
        json.dump({"unicode_version": unicodedata.unidata_version,
                   "columns": ["code_point", "category", "lower", "accent_stripped", "white_space"],
                   "rows": rows}, f, separators=(",", ":"))
        f.write("\n")

    print("merges learned:", len(merges), "bpe vocabulary:", len(bpe_tokens), "wordpiece vocabulary:",
          len(WORDPIECE_VOCAB), "cases:", len(cases), file=sys.stderr)


if __name__ == "__main__":
    main()
