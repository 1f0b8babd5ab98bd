#!/usr/bin/env bash
# The export's measured peak RSS beside estimateMemory's peak, at the sizes the export's limits
# are stated for (docs/benchmarks.md).
# Usage, from the repository after a build with -DQKV_BUILD_BENCHMARKS=ON:
#   bench/memory/measure_export_peak.sh [build]
set -euo pipefail
build="${1:-build}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
sentence() { for ((i = 0; i < $1; i++)); do printf 'w%d ' "$i"; done; }
echo "| N, d_model, h, format | estimate | measured peak RSS | measured / estimate | wall time |"
echo "|---|---|---|---|---|"
for case in "4096 4096 1 json" "4096 4096 16 json" "4096 4096 16 npy" "2048 1024 16 npy"; do
  read -r n d h format <<<"$case"
  estimate=$("$build/bench/memory/qkv_memory_estimate" "$n" "$d" "$h" "$format" | awk '{print $2}')
  target="$out/result.$format"
  [[ "$format" == npy ]] && target="$out/result"
  measured=$( { /usr/bin/time -f "%M %e" "$build/app/qkv-studio" export --mode self --source "$(sentence "$n")" \
                 --d-model "$d" --heads "$h" --format "$format" --out "$target" >/dev/null; } 2>&1 | tail -1)
  rm -rf "$target"
  read -r kb seconds <<<"$measured"
  awk -v n="$n" -v d="$d" -v h="$h" -v f="$format" -v e="$estimate" -v kb="$kb" -v s="$seconds" \
    'BEGIN { m = kb / 1024; printf "| %d, %d, %d, %s | %.0f MiB | %.0f MiB | %.2f | %.1f s |\n", n, d, h, f, e, m, m / e, s }'
done
