#!/usr/bin/env bash
# Quick start: installs what is missing, builds (Release) and opens QKV Studio on its built-in
# example. Without a display it says so and writes the example's attention headlessly instead.
# One line per step; the full output is in build/install.log and build/build.log.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/steps.sh

scripts/install-dependencies.sh
build_app() {
  # shellcheck disable=SC2046 # cmake_generator prints two words or none
  cmake -S . -B build $(cmake_generator build) -DCMAKE_BUILD_TYPE=Release -DQKV_BUILD_TESTS=OFF -DQKV_BUILD_BENCHMARKS=OFF &&
    cmake --build build --target qkv-studio -j "$(nproc)"
}
step build/build.log "Building" build_app

if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
  echo "No display found (DISPLAY and WAYLAND_DISPLAY are unset): writing the built-in example headlessly."
  build/app/qkv-studio export --format json --out build/example-attention.json
  echo "Wrote build/example-attention.json. Open the app on a desktop, or try: build/app/qkv-studio export --help"
  exit 0
fi
exec build/app/qkv-studio "$@"
