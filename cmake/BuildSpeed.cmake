# How the project builds fast on a 2-core machine (docs/benchmarks.md, "Build and test time"):
# a compiler cache shared by every clone on the machine, precompiled headers for the heavy
# headers, and a fast linker. None of them changes what is built.

# ccache, when installed: its cache lives outside the clone (ccache's own folder, ~/.cache/ccache),
# so a build of the same sources in another folder (a new clone, CI's fresh checkout) mostly hits.
# base_dir makes paths below the source folder relative before hashing, and hash_dir off leaves
# the working folder out of the hash (debug info then names the folder of the first build; the
# prefix map below makes it relative). The sloppiness is what precompiled headers need (ccache
# manual, "Precompiled headers").
option(QKV_CCACHE "Compile through ccache when it is installed" ON)
if(QKV_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(QKV_CCACHE_PROGRAM ccache)
  if(QKV_CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER
      env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} CCACHE_NOHASHDIR=true
      CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
      ${QKV_CCACHE_PROGRAM})
    message(STATUS "Compiling through ${QKV_CCACHE_PROGRAM}")
  endif()
endif()

# A fast linker: mold, else lld, else the default. About 60 test programs link the static UI
# library and Qt; under the sanitizers each carries its debug information.
option(QKV_FAST_LINKER "Link with mold or lld when the compiler can" ON)
if(QKV_FAST_LINKER AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  include(CheckLinkerFlag)
  foreach(linker mold lld)
    check_linker_flag(CXX -fuse-ld=${linker} QKV_LINKER_${linker})
    if(QKV_LINKER_${linker})
      add_link_options(-fuse-ld=${linker})
      message(STATUS "Linking with ${linker}")
      break()
    endif()
  endforeach()
endif()

# Precompiled headers: Eigen, the standard library, Qt Widgets and GoogleTest are parsed once per
# target instead of once per file. Test programs reuse one precompiled header per kind (core or
# widget tests) instead of building their own.
option(QKV_PRECOMPILED_HEADERS "Precompile the heavy third-party headers" ON)

# qkv_precompile(TARGET HEADER...): TARGET's files start from HEADER... precompiled.
function(qkv_precompile target)
  if(QKV_PRECOMPILED_HEADERS)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()

# qkv_reuse_precompiled(TARGET FROM): TARGET reuses FROM's precompiled header (same flags).
function(qkv_reuse_precompiled target from)
  if(QKV_PRECOMPILED_HEADERS)
    target_precompile_headers(${target} REUSE_FROM ${from})
  endif()
endfunction()

if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  # Debug information names source files relative to the source folder, the same from any clone.
  add_compile_options(-fdebug-prefix-map=${PROJECT_SOURCE_DIR}=.)
  if(QKV_CCACHE_PROGRAM AND QKV_PRECOMPILED_HEADERS AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # ccache can hash a GCC precompiled header only through the preprocessed output that names it.
    add_compile_options(-fpch-preprocess)
  endif()
endif()
