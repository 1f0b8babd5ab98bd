# Quiet steps for the quick-start scripts (sourced): one line per step, the full output of each
# step in a log file, and on failure the log's last lines and its path.

# Seconds each timed step took, in order ("install 12", "configure 9", ...), for times_line.
step_times=()

# timed NAME COMMAND...: runs COMMAND and adds its wall time to step_times under NAME, whether or not
# it succeeds; returns COMMAND's status.
timed() {
  local name=$1 start=$SECONDS status=0
  shift
  "$@" || status=$?
  step_times+=("$name $((SECONDS - start))")
  return "$status"
}

# times_line: "Times: install 12 s, configure 9 s, build 610 s, tests 480 s; total 1111 s", the line
# every CI log ends with, so the breakdown is seen without timing anything by hand.
times_line() {
  local entry total=0 line=""
  for entry in "${step_times[@]}"; do
    line+="${line:+, }${entry} s"
    total=$((total + ${entry##* }))
  done
  echo "Times: ${line}; total ${total} s"
}

# cmake_generator BUILD_DIR: the generator arguments for configuring BUILD_DIR: Ninja when it is
# installed, unless BUILD_DIR was configured with another generator (CMake refuses to switch).
cmake_generator() {
  local cache=$1/CMakeCache.txt
  if [[ -f "$cache" ]] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$cache"; then
    return
  fi
  if command -v ninja >/dev/null; then
    echo "-G Ninja"
  fi
}

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
    return "$status"  # the caller's set -e ends the script (after its EXIT trap, if any)
  fi
}

# report_skipped JUNIT: how many tests were skipped and, for each, the reason it gave (the line
# after GoogleTest's "Skipped"), so a skip is seen and never mistaken for a pass.
report_skipped() {
  awk '
    function unescaped(text) {
      gsub(/&lt;/, "<", text); gsub(/&gt;/, ">", text); gsub(/&quot;/, "\"", text)
      gsub(/&apos;/, "\047", text); gsub(/&amp;/, "\\&", text)
      return text
    }
    /<testcase / { match($0, /name="[^"]*"/); name = substr($0, RSTART + 6, RLENGTH - 7); skipped = 0; reasonNext = 0 }
    /<skipped/ { skipped = 1; count++; names[count] = name; reasons[count] = "no reason given" }
    skipped && reasonNext { reasons[count] = unescaped($0); reasonNext = 0 }
    skipped && /: Skipped$/ { reasonNext = 1 }
    END {
      printf "%d tests skipped%s\n", count, count ? ":" : "."
      for (i = 1; i <= count; i++) printf "  %s: %s\n", unescaped(names[i]), reasons[i]
    }' "$1"
}

# run_tests BUILD_DIR LOG: runs every test of BUILD_DIR with its output in LOG, then shows the
# output of the tests that failed, the skipped tests with their reasons and ctest's summary (the
# last lines, which CI reads).
run_tests() {
  local build=$1 log=$2
  mkdir -p "$(dirname "$log")"
  echo "Testing (log: $log)..."
  local status=0
  local junit="$build/test-results.xml"
  QT_QPA_PLATFORM=offscreen ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 600 \
    --output-junit "$PWD/$junit" >"$log" 2>&1 || status=$?
  [[ -f "$junit" ]] && report_skipped "$junit"
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
