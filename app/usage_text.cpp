#include "app/usage_text.hpp"

#include <cstdio>
#include <string>
#include <string_view>

#include "app/export_arguments.hpp"
#include "app/train_arguments.hpp"
#include "core/common/enum_names.hpp"
#include "core/common/limits.hpp"
#include "core/export/result_export.hpp"
#include "core/pipeline/generation.hpp"
#include "core/training/training_limits.hpp"
#include "core/training/training_run.hpp"

namespace qkv::app {

namespace {

// Option lines: the description starts at this column (from 0) and lines wrap before this width.
constexpr std::size_t kDescriptionColumn = 29;
constexpr std::size_t kLineWidth = 92;

// "  --mode self|causal|cross   ": an option and what it takes, padded to the description column.
std::string option(std::string_view name, std::string_view values)
{
    std::string line = "  " + std::string(name) + " " + std::string(values);
    line.append(line.size() < kDescriptionColumn ? kDescriptionColumn - line.size() : 1, ' ');
    return line;
}

// `line` (one line, no newline) continued with the words of `text`, wrapped onto lines indented
// to the description column; ends with a newline.
std::string wrapped(std::string line, std::string_view text)
{
    std::size_t lineStart = 0;
    while (!text.empty()) {
        const std::size_t space = text.find(' ');
        const std::string_view word = text.substr(0, space);
        text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
        const bool startOfLine = line.size() - lineStart <= kDescriptionColumn;
        if (!startOfLine && line.size() - lineStart + 1 + word.size() >= kLineWidth) {
            line += "\n";
            lineStart = line.size();
            line.append(kDescriptionColumn, ' ');
        } else if (!startOfLine) {
            line += ' ';
        }
        line += word;
    }
    return line + "\n";
}

// "json|csv|npy|session": what export --format takes.
std::string exportFormats() { return allowedNames(kExportFormatNames, "|") + "|" + std::string(kSessionFormatName); }

// "(default 64)": a default of `qkv-studio train`, from the task defaults themselves.
std::string trainDefault(long long value) { return "(default " + std::to_string(value) + ")"; }

// "4 to 1,024": a field's range from the training limits, written as their messages write it.
std::string trainRange(TrainingField field)
{
    const TrainingLimit& limit = trainingLimit(field);
    return limitText(field, limit.minimum) + " to " + limitText(field, limit.maximum);
}

// A limit as the usage texts write numbers ("32768").
std::string number(long long value) { return std::to_string(value); }

}  // namespace

const char* mainUsage()
{
    static const std::string text =
        "Usage: qkv-studio [FILE.qkv.json]\n"
        "       qkv-studio export [options] --format " +
        exportFormats() +
        " --out PATH\n"
        "       qkv-studio figure --figure NAME --format png|svg|pdf --out PATH [options]\n"
        "       qkv-studio train --task TASK --out DIR [options]\n"
        "       qkv-studio --version\n"
        "\n"
        "QKV Studio makes multi-head attention visible: type a source and a target sentence,\n"
        "change d_model, h and the weights, and watch every head's attention, the factored\n"
        "W_i = W_i^Q (W_i^K)^T, its spectrum and the cost comparisons update live.\n"
        "Without arguments it opens the desktop app where you left it (the first time: an\n"
        "example); with a session file (.qkv.json), on that session.\n"
        "\n"
        "Commands:\n"
        "  export                     compute and write attention without a display\n"
        "                             (qkv-studio export --help)\n"
        "  figure                     draw a figure (PNG, SVG, PDF) without a display\n"
        "                             (qkv-studio figure --help)\n"
        "  train                      train a small transformer on a task and write its\n"
        "                             sessions, log and report (qkv-studio train --help)\n"
        "\n"
        "Options:\n"
        "  -h, --help                 this text, then that of qkv-studio export\n"
        "  --version                  the version, then the folder of the examples and the\n"
        "                             lexicon (\"(missing)\" when it is not there)\n"
        "\n"
        "Environment:\n"
        "  QKV_STUDIO_DATA_DIR        the folder of the example sessions (examples/) and the\n"
        "                             lexicon (lexicon/lexicon.txt); default: the data folder\n"
        "                             beside the executable (../share/qkv-studio)\n";
    return text.c_str();
}

const char* exportUsage()
{
    static const std::string text =
        "Usage: qkv-studio export [options] --format " + exportFormats() +
        " --out PATH\n"
        "       qkv-studio export --weights FILE --list-layers\n"
        "       qkv-studio export --session TRAINED.qkv.json --list-layers\n"
        "\n"
        "Computes multi-head attention without a display and writes it for other tools.\n"
        "Defaults are the built-in example (an English source, its French target, cross mode).\n"
        "\n"
        "  --source TEXT              source sentence (keys and values in cross mode)\n"
        "  --target TEXT              target sentence (queries in cross mode)\n"
        "  --source-file FILE, --target-file FILE   the sentence read from a UTF-8 text file\n"
        "                             (a long prompt: an argument holds at most 128 KiB)\n" +
        option("--mode", allowedNames(kAttentionModeNames, "|")) +
        "self: source to source; causal: target to target, masked;\n"
        "                             cross: queries from the target, keys/values from the source\n"
        "  --d-model N                model width, 1 to " + number(limits::maxDModel) + " (default 64)\n" +
        wrapped(option("--heads", "H"), "number of heads h, 1 to " + number(limits::maxHeads) +
                                            "; must divide d_model unless --head-dim is set (default 4)") +
        wrapped(option("--head-dim", "D"),
                "d_k, the width of one head, 1 to " + number(limits::maxHeadDim) + " with h d_k at most " +
                    number(limits::maxQueryWidth) +
                    " (default auto: d_model / h); W^Q is d_model x h d_k, W_i = W_i^Q (W_i^K)^T stays d_model x "
                    "d_model") +
        "  --kv-heads G               key/value heads g, dividing h (default h; 1: multi-query)\n"
        "  --seed S                   seed of generated embeddings and weights (default 2017)\n" +
        option("--init", allowedNames(kWeightInitNames, "|")) +
        "weight initialisation (default xavier)\n"
        "  --bias                     add (zero-initialised) biases\n"
        "  --scale-q/-k/-v/-o X       multiply W^Q, W^K, W^V or W^O by X\n"
        "  --positional KIND          sinusoidal (added to X, the paper), rotary, rotary-interleaved\n"
        "                             (q and k turned by position) or none (--no-positional)\n"
        "  --rope-base B              rotary base (default 10000)\n"
        "  --sliding-window W         causal mode: each query sees only the W latest keys (Mistral);\n"
        "                             0 (the default) for every earlier key\n"
        "  --embeddings " +
        allowedNames(kEmbeddingKindNames, "|") +
        "\n"
        "                             a vector per word, per meaning shared by translations, or\n"
        "                             the model's own input (a checkpoint with its tokenizer\n"
        "                             files beside it: subword tokens; any layer of a model that\n"
        "                             runs whole reads the hidden states the layers below made)\n"
        "  --token-scale X            multiply the token embeddings by X (the paper: 1)\n" +
        wrapped(option("--preset", "NAME") + "every head:", allowedNames(kHeadPresetNames)) +
        "  --preset 1=NAME,3=NAME     chosen heads only (numbered from 1); the others keep theirs\n"
        "  --preset-sharpness X       multiply the presets' scores by X (default 1)\n"
        "  --low-rank R               the rank of low-rank presets, 1 <= R < d_k (default 1)\n"
        "  --ablate 2,3               switch heads off (from 1): their Concat blocks are zeroed\n"
        "  --ablate L.H,...           with a checkpoint: head H (from 1) of layer L (as\n"
        "                             --list-layers numbers it, or its name) anywhere in the\n"
        "                             model; every layer after it reads the changed states\n"
        "  --session FILE             start from a saved session (.qkv.json); options given\n"
        "                             with it change that session. A trained model's session\n"
        "                             (qkv-studio train) computes the layer it shows on the\n"
        "                             model's hidden states: --source and --target are words\n"
        "                             of its vocabulary (an unknown word is named, exit 2)\n"
        "  --weights FILE             safetensors: W_Q W_K W_V W_O [b_Q ...] or PyTorch\n"
        "                             nn.MultiheadAttention names (in_proj_weight, ...)\n"
        "                             or a Hugging Face checkpoint (.safetensors,\n"
        "                             model.safetensors.index.json, or the model's folder with\n"
        "                             config.json and tokenizer files; docs/checkpoints.md)\n"
        "  --layer NAME|INDEX         the checkpoint layer (module path, or index from 0); what\n"
        "                             the checkpoint fixes (the layer's shape and kind, what\n"
        "                             config.json says) wins over --mode, --d-model, --heads,\n"
        "                             --kv-heads, --bias, --positional, --rope-base, with a note;\n"
        "                             an option it leaves open (e.g. --positional without\n"
        "                             config.json) stands. With --session, a layer of its\n"
        "                             trained model (decoder.0.cross_attention, or its index);\n"
        "                             the layer's kind sets --mode\n"
        "  --layer all                with a checkpoint of BERT, RoBERTa, DistilBERT, GPT-2,\n"
        "                             LLaMA, BART or Marian: the whole model in one JSON file:\n"
        "                             every layer's heads with value norms, the attention\n"
        "                             rollout and the top 5 predictions (docs/formats.md);\n"
        "                             with --session, its trained model the same way\n" +
        wrapped(option("--generate", "N"),
                "with --layer all and a causal LM (GPT-2, LLaMA, Qwen3, ...): continue the prompt N tokens (1 to " +
                    number(kMaxGeneratedTokens) +
                    ") first; \"generated\" lists them (position, id, token, probability) and every layer covers the "
                    "prompt and the new tokens") +
        wrapped(option("--circuits", "K"),
                "with --layer all and a causal LM: \"circuits\" adds every head's QK and OV circuits (the direct "
                "path from the token embeddings, no positions, biases or norms): for each distinct token of the "
                "prompt the K keys it attends to most and the K tokens it promotes most over the whole vocabulary, "
                "and the OV eigenvalues with the copying score; refused for a model without a causal readout") +
        wrapped(option("--corrupt", "TEXT"),
                "with --layer all, --answer A and --wrong B, and a causal LM: \"patching\" adds activation "
                "patching between the prompt and TEXT (as many tokens): each head's output and each position of "
                "the residual stream entering each layer taken from the prompt's run into TEXT's, as the fraction "
                "of logit(A) - logit(B) at the last position recovered (1: the whole clean answer)") +
        wrapped(option("--answer", "A --wrong B"),
                "with --corrupt: the answer and the wrong token, each one token of the model's vocabulary as text "
                "(e.g. \" Paris\"); refused, naming the tokens, when a text cuts into more") +
        "  --logit-lens               with --layer all and a causal LM: \"logit_lens\" adds the\n"
        "                             top 5 tokens after each layer at every position (the\n"
        "                             residual stream through the final norm and readout)\n" +
        "  --temperature T            with --generate: 0 (the default) takes the most likely\n"
        "                             token, T > 0 samples from softmax(logits / T)\n"
        "  --seed S                   with --generate, also the sampling's seed (default 0)\n"
        "  --list-layers              print the checkpoint's (or the trained session's) layers,\n"
        "                             one per line:\n"
        "                             index<TAB>name<TAB>kind<TAB>h<TAB>g<TAB>d_model\n"
        "                             (without config.json h is --heads, else d_model/64)\n"
        "  --source-embeddings FILE   .npy (n x d_model) replacing the generated source X\n"
        "  --target-embeddings FILE   .npy (n x d_model) replacing the generated target X\n"
        "  --format FORMAT            json: one document (docs/formats.md); csv: one row per\n"
        "                             head, query and key; npy: a folder of arrays; session:\n"
        "                             a .qkv.json session the app opens\n"
        "  --out PATH                 output file (folder for npy), replaced atomically\n"
        "  --spectrum                 singular values of every W_i even when d_k > " + number(kExportSpectrumMaxDk) +
        "\n"
        "                             (measured at d_k = 4096: ~35 s and ~1.1 GiB more)\n"
        "Long prompts (up to " + number(limits::maxTokens) + " tokens per sentence; JSON only):\n"
        "  --pool N                   each head's map as at most N x N blocks (attention_pool:\n"
        "                             block means and maxima), streamed, never held whole\n"
        "  --rows A:B, --cols C:D     each head's attention and scores over rows A..B-1 and\n"
        "                             columns C..D-1 only (one alone: every position of the other)\n"
        "  --max-cells N              without --pool or --rows/--cols, refuse a layer with more\n"
        "                             than N cells per head (default " + number(kDefaultMaxCells) + " = " +
        number(limits::maxFullMapTokens) + " x " + number(limits::maxFullMapTokens) + ")\n"
        "\n"
        "Exit status: 0 written, 1 a file could not be read, computed or written, 2 bad argument;\n"
        "interrupted (SIGINT, SIGTERM): its temporary files are removed, nothing is left at --out.\n";
    return text.c_str();
}

const char* figureUsage()
{
    static const std::string text =
           "Usage: qkv-studio figure --figure NAME --format png|svg|pdf --out PATH [options]\n"
           "       qkv-studio figure --list\n"
           "\n"
           "Draws one of the app's figures from a session without a display (no Qt environment\n"
           "variable needed): the same drawing as the app's File > Export Figure.\n"
           "\n"
           "  --list                     print every figure's name, one per line\n"
           "  --figure NAME              the figure to draw (see --list and docs/figures.md)\n"
           "  --format png|svg|pdf       PNG image, SVG drawing (text kept as text) or one-page PDF\n"
           "  --out PATH                 written atomically; nothing is left there on failure\n" +
        wrapped(option("--width W --height", "H"), "the size in pixels (SVG, PDF: in 1/96 inch), " +
                                                      number(limits::minFigureSide) + " to " +
                                                      number(limits::maxFigureSide) +
                                                      "; one of the two keeps the figure's default aspect ratio") +
        wrapped(option("--dpi", "D"), "the default size at D dots per inch (" + number(limits::minFigureDpi) +
                                          " to " + number(limits::maxFigureDpi) +
                                          "): a PNG of default x D/96 pixels (vector formats are unchanged)") +
           "  --head N                   the head, numbered from 1 (default: the session's, else 1)\n"
           "  --query N                  the query token's position, from 0 (default: the session's,\n"
           "                             else 0); A:B selects queries A..B-1 together: query-row\n"
           "                             draws their mean row and each key's largest weight\n"
           "  --key N                    the key token's position, from 0 (step by step)\n"
           "  --show KIND                what the heads figures show: attention, scores (scaled\n"
           "                             scores q·k/sqrt(d_k) before the mask), masked-scores,\n"
           "                             value-weighted (||a f(x)||, f(x) = (x W^V + b^V) W^O:\n"
           "                             what each key adds to the query's output, per head)\n"
           "  --colormap NAME            viridis, magma, cividis, greys, blueorange, redblue\n"
           "  --color-range RANGE        auto (0 to the 99th percentile of the weights), unit\n"
           "                             (0 to 1; value-weighted: 0 to the largest) or LOW:HIGH\n"
           "  --average                  add the average of the heads to the heads grid\n"
           "                             (value-weighted: the whole layer's ||sum a f(x)||)\n"
           "  --pinned FILE              a session (.qkv.json) for the compare figure: it shows\n"
           "                             pinned - this session's attention, head by head\n"
           "  --corrupt TEXT             the patching figures (patching-heads, patching-residual):\n"
           "                             the session's sentence patched into TEXT, cut into as many\n"
           "                             tokens (a causal language model's layer, --embeddings model)\n"
           "  --answer A, --wrong B      their logit difference (one token each; default: the clean\n"
           "                             and the corrupted run's most likely next token)\n"
           "\n"
           "The session: --session FILE (a .qkv.json the app saved, with its view: head, colormap,\n"
           "colour range, ...) and/or any option of qkv-studio export that describes one (--source,\n"
           "--target, --mode, --d-model, --heads, --weights, --preset, ...; see qkv-studio export\n"
           "--help). Without them, the built-in example.\n"
           "\n"
           "Exit status: 0 written, 1 a file could not be read, computed, drawn or written, 2 bad\n"
           "argument.\n";
    return text.c_str();
}

const char* trainUsage()
{
    const TrainingSettings defaults = TrainingSettings::defaultsFor(TaskKind::Reverse);
    const TrainingSettings induction = TrainingSettings::defaultsFor(TaskKind::Induction);
    char learningRate[32];
    std::snprintf(learningRate, sizeof learningRate, "%g", defaults.optimizer.learningRate);
    static const std::string text =
        "Usage: qkv-studio train --task TASK --out DIR [options]\n"
        "\n"
        "Trains a small transformer (token embeddings, positions, attention layers, MLP, LayerNorm,\n"
        "a linear readout) on a task whose data the app generates, and writes into the new folder\n"
        "DIR: factored.qkv.json and/or full.qkv.json (sessions the app opens, showing the first\n"
        "cross-attention layer, or the last layer of a decoder-only model, on a held-out example),\n"
        "log.csv (step,variant,loss,accuracy,seconds) and report.json (sizes, losses, accuracy,\n"
        "every head's effective rank and task scores, and the factored/full comparison;\n"
        "docs/formats.md). Training and held-out examples never overlap.\n"
        "\n" +
        wrapped(option("--task", "TASK"),
                allowedNames(kTaskKindNames) +
                    ": reverse, copy or sort 4-12 symbols; translate English word by word into French or German "
                    "with their word order; induction: random tokens repeated twice, decoder only") +
        "  --data PAIRS.tsv           translate your own pairs: UTF-8, source<TAB>target per line\n" +
        option("--language", allowedNames(kTargetLanguageNames, "|")) +
        "the language translate writes (default " + std::string(nameOf(kTargetLanguageNames, defaults.task.language)) +
        ")\n" +
        wrapped(option("--variant", "VARIANT"),
                "how a head forms its scores: factored (W_i^Q and W_i^K, d_model x d_k each, the paper), full "
                "(one d_model x d_model W_i per head) or both (the two on the same data and seed); default " +
                    std::string(nameOf(kTrainVariantNames, TrainArguments{}.variants))) +
        "  --d-model D                model width, " + trainRange(TrainingField::DModel) + " " +
        trainDefault(defaults.d_model) +
        "\n"
        "  --heads H                  heads h; must divide d_model " + trainDefault(defaults.headCount) +
        "\n" +
        wrapped(option("--layers", "L"), "layers per stack, " + trainRange(TrainingField::Layers) + " " +
                                             trainDefault(defaults.layers) + "; induction: " +
                                             std::to_string(induction.layers) + " decoder layers") +
        "  --steps N                  optimiser steps, " + trainRange(TrainingField::Steps) + " " +
        trainDefault(defaults.steps) +
        "\n"
        "  --batch B                  sequences per step, " + trainRange(TrainingField::Batch) + " " +
        trainDefault(defaults.batch) +
        "\n"
        "  --lr X                     AdamW's learning rate, " + trainRange(TrainingField::LearningRate) +
        " (default " + learningRate +
        ")\n"
        "  --seed S                   seed of the data and of the initial weights " +
        trainDefault(static_cast<long long>(defaults.seed)) + "\n"
        "  --out DIR                  a new or empty folder; written whole at the end, nothing is\n"
        "                             left there on failure or interruption\n"
        "\n"
        "Progress goes to stderr: a bar on a terminal, a line every few seconds otherwise.\n"
        "\n"
        "Exit status: 0 written, 1 DIR is not a new or empty folder or cannot be written (checked\n"
        "before training), or the pairs file cannot be read, 2 bad argument.\n";
    return text.c_str();
}

}  // namespace qkv::app
