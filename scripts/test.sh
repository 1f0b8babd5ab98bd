#!/usr/bin/env bash
# Installs what is missing, builds everything (app, tests, benchmarks) and runs every test:
# core (GoogleTest), export end to end, and the Qt widget tests on the offscreen platform.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-dependencies.sh --tests
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DQKV_BUILD_TESTS=ON -DQKV_BUILD_BENCHMARKS=ON >/dev/null
cmake --build build -j "$(nproc)"
# Widget tests paint offscreen; no X server is needed.
export QT_QPA_PLATFORM=offscreen
ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 300
