#!/usr/bin/env bash
# Regenerates docs/figures/*.png (the README's gallery and docs/figures.md) with
# `qkv-studio figure`: no display, no hand-made screenshots. Usage, from the repository:
#   docs/make_figures.sh [path/to/qkv-studio]      (default: build/app/qkv-studio)
set -euo pipefail

studio="${1:-build/app/qkv-studio}"
out="$(dirname "$0")/figures"
mkdir -p "$out"

figure() {  # figure OUTPUT-NAME ARGUMENTS...
  local name="$1"
  shift
  "$studio" figure --format png --out "$out/$name.png" "$@"
  echo "wrote $out/$name.png"
}

# The built-in example: an English source and its French translation, cross-attention.
figure heads --figure heads
figure head --figure head --head 2
figure steps --figure steps --head 2 --query 1 --key 1
# Decoder masked self-attention: scaled scores with the causal mask hatched.
figure head-causal-scores --figure head --mode causal --show scores --head 1
# Heads built to do one thing each, titled by what they are.
figure heads-presets --figure heads --mode self --source "the cat sat on the mat and the dog sat on the cat" \
  --preset 1=same-token,2=previous-token,3=next-token,4=uniform
# Why two thin matrices: the factored view, and a head of rank 2 (its spectrum drops after 2).
figure factored --figure factored
figure spectrum-low-rank --figure spectrum --preset 1=low-rank --low-rank 2 --head 1
figure equivalence --figure equivalence
# What it costs, at BERT-base's shape.
figure comparison --figure comparison --d-model 768 --heads 12
figure parameters-vs-h --figure parameters-vs-h --d-model 768 --heads 12
# The layer views: the paper's Figure 2 live, the Q/K maps, the per-head statistics.
figure matrices --figure matrices --head 1
figure qk-map-heads --figure qk-map-heads
figure head-statistics --figure head-statistics
