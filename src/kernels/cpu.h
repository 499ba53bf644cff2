// What the running CPU (and its operating system) can execute, from our own cpuid/xgetbv check: xsimd 8.1's
// detection ignores whether the OS saves the AVX state (ARCHITECTURE.md §5).
#pragma once

#include "kernels/kernel_table.h"

namespace onemodel {

// True when the instructions of `path` can run here. Says nothing about whether this build compiled the path.
bool cpu_supports(KernelPath path);

// True when the CPU runs the AVX-512 path and also has AVX512-VNNI (vpdpbusd), which that path's int8
// product kernel then uses.
bool cpu_has_avx512_vnni();
// True when the CPU runs the AVX-512 path and also has AVX512-VBMI (vpermi2b, a 128-byte table lookup).
bool cpu_has_avx512_vbmi();

}  // namespace onemodel
