#!/usr/bin/env bash
# Regenerates the README's window pictures (docs/screenshots/*.png) from the real app: each is a
# session written by `qkv-studio export --format session`, opened by `qkv-studio FILE.qkv.json`
# under Xvfb, the window sized with xdotool and the screen captured with ImageMagick's import.
# Needs: apt-get install xvfb xdotool imagemagick python3. Usage, from the repository:
#   docs/make_screenshots.sh [path/to/qkv-studio]      (default: build/app/qkv-studio)
set -euo pipefail

studio="$(realpath "${1:-build/app/qkv-studio}")"
out="$(cd "$(dirname "$0")" && pwd)/screenshots"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

# session NAME TAB HEAD [export options...]: a session file that opens on TAB with HEAD (from 1).
session() {
  local name=$1 tab=$2 head=$3
  shift 3
  "$studio" export --format session --out "$work/$name.qkv.json" "$@"
  python3 - "$work/$name.qkv.json" "$tab" "$head" <<'PYTHON'
import json, sys
path, tab, head = sys.argv[1], sys.argv[2], int(sys.argv[3])
session = json.load(open(path))
session["view"].update(tab=tab, head=head)
json.dump(session, open(path, "w"))
PYTHON
}

# shot NAME WIDTH HEIGHT: the app on session NAME in a WIDTH x HEIGHT window, saved as NAME-WxH.png.
# Keys to type first, for what a session does not store, are in KEYS_<NAME> (xdotool key names);
# the seconds to wait after them (default 1), in WAIT_<NAME>.
shot() {
  local name=$1 width=$2 height=$3 attempt
  # xvfb-run -a can lose the race for a display number to another X server starting at the same
  # moment (the app then cannot connect): try again.
  for attempt in 1 2 3; do
    rm -f "$out/$name-${width}x$height.png"
    capture "$@" && [[ -s "$out/$name-${width}x$height.png" ]] && break
  done
  [[ -s "$out/$name-${width}x$height.png" ]] || { echo "error: no picture for $name at ${width}x$height" >&2; return 1; }
  echo "wrote $out/$name-${width}x$height.png"
}

capture() {
  local name=$1 width=$2 height=$3 keys_variable="KEYS_${1//-/_}" wait_variable="WAIT_${1//-/_}"
  HOME="$work/home-$name-$width" xvfb-run -a -s "-screen 0 1920x1080x24" bash -c '
    "$0" "$1" >/dev/null 2>&1 &
    app=$!
    for _ in $(seq 1 100); do window=$(xdotool search --onlyvisible --name "QKV Studio" 2>/dev/null | head -1); [[ -n "$window" ]] && break; sleep 0.2; done
    sleep 1
    xdotool windowsize "$window" "$2" "$3"
    xdotool windowmove "$window" 0 0
    sleep 2
    [[ -z "$5" ]] || { xdotool windowfocus --sync "$window"; sleep 0.5; xdotool key --delay 300 $5; sleep "$6"; }
    sleep 1
    import -window root -crop "$2x$3+0+0" "$4"
    kill "$app"' "$studio" "$work/$name.qkv.json" "$width" "$height" "$out/$name-${width}x$height.png" \
    "${!keys_variable:-}" "${!wait_variable:-1}" 2>/dev/null
}

translation=(--mode cross --source "The black cat sat on the mat because it was tired."
             --target "Le chat noir s'est assis sur le tapis parce qu'il était fatigué." --embeddings meaning
             --preset 1=same-meaning,2=same-position,3=previous-token,4=uniform --seed 2017)
session heads heads 1 "${translation[@]}"
session steps step 1 "${translation[@]}"
session matrices matrices 1 "${translation[@]}"
session qkmap qk-map 2 "${translation[@]}"
session compare compare 2 "${translation[@]}"
KEYS_compare="alt+w Down"  # Show: each head − the selected head (a pin is not stored in sessions)
session weights head-weights 2 "${translation[@]}"
# The Train tab (T&rain), reversing symbols: a few seconds in (St&art), and done (both variants).
session train heads 1 "${translation[@]}"
KEYS_train="alt+r alt+a"
WAIT_train=1
session train-done heads 1 "${translation[@]}"
KEYS_train_done="alt+r alt+n Down Down alt+a"
WAIT_train_done=30
session factored factored 1 --mode self --preset 1=low-rank --low-rank 2
session comparison comparison 1 --d-model 768 --heads 12
session steps-gqa-rotary-ablated step 3 --mode causal --target "the cat saw the dog and the dog saw the cat ." \
  --heads 4 --kv-heads 2 --positional rotary --ablate 3
# A checkpoint's first layer on the model's own input (subword chips), and a loaded GPT-2 layer's
# factored view: the synthetic test checkpoints of tests/data/checkpoint (make_checkpoints.py).
checkpoints="$(cd "$(dirname "$0")/.." && pwd)/tests/data/checkpoint"
session checkpoint-input heads 1 --weights "$checkpoints/bert_input/model.safetensors" --layer 0 \
  --embeddings model --source "The cat sat on the mat, playing." 2>/dev/null
session checkpoint-factored factored 2 --weights "$checkpoints/gpt2_input/model.safetensors" --layer transformer.h.0.attn \
  --embeddings model --target "The cat sat on the mat, playing." 2>/dev/null
# The whole model: the demo GPT-2 trained on the induction task (docs/demo-model), layers x heads
# and their statistics on the Model tab, and its next-token prediction with induction head 1.1
# switched off on the Predict tab (view.model_heads_off).
demo="$(cd "$(dirname "$0")" && pwd)/demo-model"
repeated=(--weights "$demo" --layer 1 --embeddings model --target "a b c d e f g h a b c d e f g")
session model-view model 1 "${repeated[@]}" 2>/dev/null
session predict-head-off predictions 1 "${repeated[@]}" 2>/dev/null
KEYS_predict_head_off="alt+k"  # Ran&k heads for the top prediction
WAIT_predict_head_off=3
python3 - "$work/predict-head-off.qkv.json" <<'PYTHON'
import json, sys
session = json.load(open(sys.argv[1]))
session["view"]["model_heads_off"] = ["1.1"]
json.dump(session, open(sys.argv[1], "w"))
PYTHON
long="$(for i in $(seq 1 64); do echo -n "the cat sat on the mat and slept "; done)"
session matrices-512-1024 matrices 1 --mode self --source "$long" --d-model 1024 --heads 16
session qkmap-512-768 qk-map 1 --mode self --source "$long" --d-model 768 --heads 12
for name in ${ONLY:-heads steps matrices qkmap factored comparison compare weights train train-done model-view predict-head-off}; do
  for size in "1000 700" "1400 900" "1920 1080"; do shot "$name" $size; done
done
[[ -n "${ONLY:-}" && -z "${EXTRA:-}" ]] || { shot steps-gqa-rotary-ablated 1400 900; shot matrices-512-1024 1920 1080; shot qkmap-512-768 1920 1080; }
