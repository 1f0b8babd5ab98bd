#!/usr/bin/env bash
# Regenerates the README's pictures of the student guide (docs/screenshots/guide-*.png) from the
# real app under Xvfb: a first start (no autosave) at 1000 x 700, F1 opens the guide, Alt+N goes
# to the next step, and ImageMagick's import captures the screen.
# Needs: apt-get install xvfb xdotool imagemagick. Usage, from the repository:
#   docs/make_guide_screenshots.sh [path/to/qkv-studio]      (default: build/app/qkv-studio)
set -euo pipefail

studio="$(realpath "${1:-build/app/qkv-studio}")"
out="$(cd "$(dirname "$0")" && pwd)/screenshots"
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
mkdir -p "$out"

# The guide's steps are captured once each one's scenario is computed (a few seconds).
HOME="$home" xvfb-run -a -s "-screen 0 1600x1000x24" bash -c '
  "$0" >/dev/null 2>&1 &
  app=$!
  for _ in $(seq 1 100); do window=$(xdotool search --onlyvisible --name "QKV Studio" 2>/dev/null | head -1); [[ -n "$window" ]] && break; sleep 0.2; done
  sleep 1
  xdotool windowsize "$window" 1000 700
  xdotool windowmove "$window" 0 0
  sleep 3
  xdotool windowfocus "$window"
  next() { xdotool key alt+n; sleep 4; }
  xdotool key F1; sleep 4
  next  # step 2: what V is
  import -window root -crop 1000x700+0+0 "$1/guide-1000x700.png"
  next; next; next; next  # step 6: one W^Q split into heads
  import -window root -crop 1000x700+0+0 "$1/guide-factored-1000x700.png"
  kill "$app"' "$studio" "$out"
echo "wrote $out/guide-1000x700.png $out/guide-factored-1000x700.png"
