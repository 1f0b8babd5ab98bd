# Warnings and code generation for the project's own targets (never for dependencies).
add_library(qkv_compile_options INTERFACE)
target_compile_options(qkv_compile_options INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic>)
if(QKV_NATIVE)
  # Eigen's float GEMM runs ~4x faster with AVX2/FMA than with the SSE2 baseline (docs/architecture.md, "Rules learned on this machine").
  target_compile_options(qkv_compile_options INTERFACE $<$<CXX_COMPILER_ID:GNU,Clang>:-march=native>)
endif()
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  # GCC 12's AVX-512 intrinsics trip -Wmaybe-uninitialized on their own '__Y' temporaries when
  # Eigen inlines them (GCC bug 105593, fixed in GCC 13); and its -Wrestrict fires on plain
  # std::string concatenation at -O2 and above (GCC bug 105651). The noise would hide real warnings.
  target_compile_options(qkv_compile_options INTERFACE -Wno-maybe-uninitialized -Wno-restrict)
endif()

# Assertions in an optimised build: Release and RelWithDebInfo define NDEBUG, and Qt's targets
# QT_NO_DEBUG, so no assert, eigen_assert or Q_ASSERT would run. The sanitizer suite turns them
# on (scripts/test.sh --sanitize); the flags come after CMake's -D definitions, so they win.
option(QKV_ASSERTIONS "Keep assert, eigen_assert and Q_ASSERT in optimised builds" OFF)
if(QKV_ASSERTIONS)
  target_compile_options(qkv_compile_options INTERFACE -UNDEBUG -UQT_NO_DEBUG)
  target_compile_definitions(qkv_compile_options INTERFACE QKV_ASSERTIONS_ON)
endif()
