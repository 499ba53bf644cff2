// Data movement around the matrix product of a convolution (kernels-gemm.md "Convolution", ops-conv.md
// "Conv, ConvTranspose"): im2col turns input patches into the columns of the product's B operand, col2im sums
// a transposed convolution's product back onto its output. Portable code: only copies and separately rounded
// additions, so it is the same on every kernel path.
#pragma once

#include <cstdint>

#include "kernels/conv/conv_geometry.h"
#include "threading/parallel_for.h"

namespace onemodel {

// Rows of B per block of the GEMM's packed layout (kernels-gemm.md "Structure", step 1: KC).
inline constexpr int64_t kPackedBlockRows = 256;

// Columns [first, first + width) of the (channels * g.taps()) x g.out_size() im2col matrix of a Conv input
// `x` (channels planes of g.in_size()), written straight into the GEMM's packed-B layout for strips of `nr`
// columns (kernels-gemm.md step 1; `packed` holds packed_b_floats(rows, width) floats). Row (c, kd, ky, kx)
// in row-major order, column (od, oy, ox) flattened; a tap outside the input and columns past `width` are +0.
void im2col_packed(const ConvGeometry& g, const float* x, int64_t channels, int64_t first, int64_t width,
                   int64_t nr, float* packed);

// A ConvTranspose output: `y` (channels planes of g.out_size()) where output (c, o) is the sum, from +0 in
// increasing tap order (kd, ky, kx), of col[(c, tap), i] over the taps whose input position i lands on o.
// `col` is (channels * g.taps()) x g.in_size(), row-major. Exact: a NaN sum is stored as 0x7FC00000.
void col2im(const ConvGeometry& g, const float* col, int64_t channels, float* y, bool exact,
            const ThreadContext& threads);

}  // namespace onemodel
