// Kernel rows of the cross-target golden hashes (testdata/golden-exact.txt): exact GEMM sweeps, the seven
// exact transcendentals and softmax rows, hashed with SHA-256. Inputs come from integer generators only.
#pragma once

#include <string>
#include <vector>

namespace onemodel::golden {

// One "<case> <sha256>" line per case, computed with the exact kernels of `kernels` ("" = best path) on
// `threads` threads (0 = all). Throws SessionError when the path is unknown or unavailable.
std::vector<std::string> kernel_lines(const std::string& kernels, int threads);

}  // namespace onemodel::golden
