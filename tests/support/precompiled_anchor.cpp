// An empty file: the target that holds the precompiled header the core test programs reuse
// (tests/CMakeLists.txt) needs one source to compile it with.
