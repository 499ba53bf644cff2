// What the running CPU (and its operating system) can execute, from our own cpuid/xgetbv check: xsimd 8.1's
// detection ignores whether the OS saves the AVX state (ARCHITECTURE.md §5).
#pragma once

#include "kernels/kernel_table.h"

namespace onemodel {

// True when the instructions of `path` can run here. Says nothing about whether this build compiled the path.
bool cpu_supports(KernelPath path);

}  // namespace onemodel
