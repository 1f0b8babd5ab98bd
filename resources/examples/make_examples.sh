#!/bin/sh
# Makes the example sessions the app ships (File > Examples, the Scenarios menu and the first
# start) with the command line, so every example is exactly what `qkv-studio export` computes.
# Usage: resources/examples/make_examples.sh [path/to/qkv-studio]   (default: build/app/qkv-studio)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
studio=${1:-$here/../../build/app/qkv-studio}
[ -x "$studio" ] || { echo "make_examples.sh: no qkv-studio at $studio (build it first)" >&2; exit 1; }

english="The black cat sat on the mat because it was tired."
french="Le chat noir s'est assis sur le tapis parce qu'il était fatigué."

# Cross-attention English -> French; four heads with four recognisable jobs. The same-meaning
# preset turns on meaning embeddings (a word and its translation share a vector) and the
# positional presets lower the token-embedding scale to 0.03 (docs/presets.md).
"$studio" export --source "$english" --target "$french" --mode cross --d-model 64 --heads 4 --seed 2017 \
  --preset 1=same-meaning,2=same-position,3=previous-token,4=uniform \
  --format session --out "$here/translation.qkv.json"

# A decoder's masked self-attention on a sentence that repeats its words.
"$studio" export --source "$english" --target "the cat saw the dog and the dog saw the cat ." --mode causal \
  --d-model 64 --heads 4 --seed 2017 --preset 1=previous-token,2=same-token,3=uniform,4=random \
  --format session --out "$here/decoder.qkv.json"

# The paper's random initialisation: the built-in example, every head as initialised.
"$studio" export --format session --out "$here/paper-random.qkv.json"

# Encoder self-attention with head 1 of rank r = 2 < d_k = 16, opened on the factored view.
"$studio" export --source "$english" --target "$french" --mode self --d-model 64 --heads 4 --seed 2017 \
  --preset 1=low-rank --low-rank 2 --format session --out "$here/low-rank.qkv.json"
sed -i 's/"tab": "heads"/"tab": "factored"/' "$here/low-rank.qkv.json"

# A model trained in the app and kept (a Train tab's Keep writes the same session): Reverse, the
# paper's factored heads, on a held-out sentence of eight distinct symbols so that the learned
# alignment (each target position on the source symbol it copies) reads as one anti-diagonal.
trained=$(mktemp -d)
"$studio" train --task reverse --variant factored --d-model 32 --heads 4 --steps 1500 --seed 1 --out "$trained/run"
sed 's/"source": "[^"]*"/"source": "d a c h e b g f"/; s/"target": "[^"]*"/"target": "f g b e h c a d"/' \
  "$trained/run/factored.qkv.json" > "$here/trained-reverse.qkv.json"
rm -rf "$trained"
