# Quiet steps for the quick-start scripts (sourced): one line per step, the full output of each
# step in a log file, and on failure the log's last lines and its path.

# step LOG MESSAGE COMMAND...: prints "MESSAGE (log: LOG)..." and writes COMMAND's output to LOG.
# COMMAND may be a function; chain its commands with && (set -e does not apply inside it here).
step() {
  local log=$1 message=$2
  shift 2
  mkdir -p "$(dirname "$log")"
  echo "$message (log: $log)..."
  local status=0
  "$@" >"$log" 2>&1 || status=$?
  if ((status != 0)); then
    {
      echo "error: $message failed (exit status $status). The last lines of $log:"
      tail -n 25 "$log" | sed 's/^/  | /'
      echo "The full output is in $log"
    } >&2
    exit "$status"
  fi
}

# run_tests BUILD_DIR LOG: runs every test of BUILD_DIR with its output in LOG, then shows the
# output of the tests that failed and ctest's summary (the last lines, which CI reads).
run_tests() {
  local build=$1 log=$2
  mkdir -p "$(dirname "$log")"
  echo "Testing (log: $log)..."
  local status=0
  QT_QPA_PLATFORM=offscreen ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 600 \
    >"$log" 2>&1 || status=$?
  # Each failed test's line and the output ctest printed for it, then the summary.
  awk '/tests passed, / { exit }
       /^ *Start +[0-9]+:/ { next }
       /^ *[0-9]+\/[0-9]+ Test +#[0-9]+:/ { show = ($0 ~ /\*\*\*|Not Run/) }
       show' "$log"
  if grep -q 'tests passed, ' "$log"; then
    sed -n '/tests passed, /,$p' "$log"
  else
    tail -n 25 "$log"
  fi
  return "$status"
}
