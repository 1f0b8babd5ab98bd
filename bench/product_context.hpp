#pragma once
// What every benchmark whose figures depend on the float products prints beside them: the product
// kernel this process chose (core/common/product_kernels.hpp; QKV_PRODUCT_KERNEL forces one) and
// the CPU's vector extensions, so a figure in docs/benchmarks.md names its kernel and its machine.

#include <benchmark/benchmark.h>

#include "core/common/product_kernels.hpp"

namespace qkv::bench {

// Called before benchmark::RunSpecifiedBenchmarks; a program that forces kernels itself reports
// the choice made without forcing.
inline void addProductContext()
{
    benchmark::AddCustomContext("products", productKernelName());
    benchmark::AddCustomContext("cpu", cpuVectorExtensions());
}

}  // namespace qkv::bench
