#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test: core (GoogleTest), export
# end to end, and the Qt widget tests on the offscreen platform. One line per step; the full
# output is in the build folder's install.log, configure.log, build.log and test.log, and the
# output of failed tests and ctest's summary are shown at the end, then the time of each step.
#
#   scripts/test.sh             Release build in build/ (app, tests, benchmarks)
#   scripts/test.sh --sanitize  the same suite built with AddressSanitizer and UBSan in
#                               build-sanitize/ (portable code, assertions on, no benchmarks);
#                               any report or failed assertion fails
#
# Builds go through ccache when it is installed (it is, by this script): a second build of the same
# sources, in this clone or another one on the machine, mostly reads compiled files from the cache.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/steps.sh

if [[ "${1:-}" == "--sanitize" ]]; then
  build=build-sanitize
  flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
  # QKV_ASSERTIONS: assert, eigen_assert and Q_ASSERT run (RelWithDebInfo would define NDEBUG).
  # -g1: line tables only, all a sanitizer report needs for file:line; full debug information made
  # every compile and link several times slower.
  configure=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
             -DQKV_NATIVE=OFF -DQKV_ASSERTIONS=ON -DQKV_BUILD_TESTS=ON -DQKV_BUILD_BENCHMARKS=OFF
             "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_EXE_LINKER_FLAGS=$flags" "-DCMAKE_SHARED_LINKER_FLAGS=$flags")
  # Also while building: test discovery runs the test programs. Suppressions: scripts/sanitizers/.
  suppressions="$PWD/scripts/sanitizers"
  # intercept_tls_get_addr=0: GCC 12's LeakSanitizer misreads glibc 2.36's dynamic TLS vector (a
  # slot of the main thread read as a 32 GB block at 0x14bc) and its tracer crashed after a passing
  # PDF figure test, every time. Leaks are still looked for in the heap, the stacks and static
  # TLS; only the dynamic TLS of libraries loaded at run time is not scanned.
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:detect_stack_use_after_return=1:intercept_tls_get_addr=0"
  export LSAN_OPTIONS="suppressions=$suppressions/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$suppressions/ubsan.supp"
  message="Building with AddressSanitizer and UBSan"
  # Every float product on code the sanitizers instrument: the libraries limited to their AVX2
  # kernels, which do not keep rows, leave the products to the project's packed kernel (and the
  # tests that force Eigen), as on an AVX2 machine; the Release suite runs the libraries' routes
  # too (core/common/product_kernels.hpp).
  export ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell
  unset QKV_PRODUCT_KERNEL
else
  build=build
  configure=(-DCMAKE_BUILD_TYPE=Release -DQKV_BUILD_TESTS=ON -DQKV_BUILD_BENCHMARKS=ON)
  message="Building"
  # The Release suite runs the float products on the kernels chosen for this CPU
  # (core/common/product_kernels.hpp); an inherited OPENBLAS_CORETYPE=Haswell or ONEDNN_MAX_CPU_ISA
  # would hold the libraries to their AVX2 kernels, which the sanitizer suite runs.
  unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE ONEDNN_MAX_CPU_ISA QKV_PRODUCT_KERNEL
fi

# A status that fails the run is kept until the times are printed.
finish() {
  local status=$?
  times_line
  exit "$status"
}
trap finish EXIT

timed install scripts/install-dependencies.sh --tests
configure_build() {
  # shellcheck disable=SC2046 # cmake_generator prints two words or none
  cmake -S . -B "$build" $(cmake_generator "$build") "${configure[@]}"
}
timed configure step "$build/configure.log" "Configuring" configure_build
timed build step "$build/build.log" "$message" cmake --build "$build" -j "$(nproc)"
timed tests run_tests "$build" "$build/test.log"
