# Warnings and code generation for the project's own targets (never for dependencies).
add_library(qkv_compile_options INTERFACE)
target_compile_options(qkv_compile_options INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic>)
if(QKV_NATIVE)
  # Eigen's float GEMM runs ~4x faster with AVX2/FMA than with the SSE2 baseline (design.md 5).
  target_compile_options(qkv_compile_options INTERFACE $<$<CXX_COMPILER_ID:GNU,Clang>:-march=native>)
endif()
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  # GCC 12's AVX-512 intrinsics trip -Wmaybe-uninitialized on their own '__Y' temporaries when
  # Eigen inlines them (GCC bug 105593, fixed in GCC 13); and its -Wrestrict fires on plain
  # std::string concatenation at -O2 and above (GCC bug 105651). The noise would hide real warnings.
  target_compile_options(qkv_compile_options INTERFACE -Wno-maybe-uninitialized -Wno-restrict)
endif()
