// An empty file: the targets that hold the precompiled headers the test programs reuse
// (tests/CMakeLists.txt, tests/ui/CMakeLists.txt) need one source to compile them with.
