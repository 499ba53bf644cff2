// Row kernels of the normalisation operators (ops-norms.md), one table per kernel path like KernelTable's
// entries, in a table of their own so that adding them left kernels/kernel_table.h untouched. Each computes
// the operator's rounded operations in its order, with the canonical sum's 16 partials held as vectors, so
// the bits equal graph/ops/norm/norm_rows.h's scalar row step on every path and in both modes.
#pragma once

#include <cstdint>

#include "kernels/kernel_table.h"

namespace onemodel {

// `rows` contiguous rows of `cols` elements, normalised over each row.
struct LayerNormRowsArgs {
  const float* x = nullptr;
  float* y = nullptr;  // may be x
  int64_t rows = 0, cols = 0;
  float epsilon = 0.0f;
  bool rms = false;              // RMSNormalization: the mean is taken as 0
  const float* scale = nullptr;  // cols values
  const float* bias = nullptr;   // cols values, or nullptr
  float* mean = nullptr;         // optional: one value per row (NaN canonical)
  float* inv_std_dev = nullptr;  // optional: one value per row (NaN canonical)
};

struct NormKernels {
  // Per row: mean = canonical sum of x / cols (0 with rms), variance = canonical sum of (x - mean)^2 / cols,
  // inv = 1 / sqrt(variance + epsilon), y = (((x - mean) * inv) * scale) + bias, each operation rounded on
  // its own and a NaN in y stored as 0x7FC00000.
  void (*layer_norm_rows)(const LayerNormRowsArgs& args);
};

// The table of a path this build compiled (the session's `kernels->path`); nullptr otherwise.
const NormKernels* norm_kernels(KernelPath path);

}  // namespace onemodel
