#!/usr/bin/env bash
# Quick start: installs what is missing, builds (Release) and opens QKV Studio on its built-in
# example. Without a display it says so and writes the example's attention headlessly instead.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-dependencies.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DQKV_BUILD_TESTS=OFF -DQKV_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build --target qkv-studio -j "$(nproc)"

if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
  echo "No display found (DISPLAY and WAYLAND_DISPLAY are unset): writing the built-in example headlessly."
  build/app/qkv-studio export --format json --out build/example-attention.json
  echo "Wrote build/example-attention.json. Open the app on a desktop, or try: build/app/qkv-studio export --help"
  exit 0
fi
exec build/app/qkv-studio "$@"
