// The row step of LayerNormalization, RMSNormalization, InstanceNormalization and GroupNormalization
// (ops-norms.md): mean and variance by the canonical sum, inv = 1 / sqrt(v + epsilon), then
// y = (((x - mean) * inv) * scale) + bias, every operation rounded on its own. LayerNormalization and
// RMSNormalization run it as the vector kernel of kernels/norm/norm_kernels.h, which gives the same bits.
#pragma once

#include <cmath>
#include <cstdint>

#include "graph/ops/linalg/canonical_nan.h"
#include "graph/ops/reduce/canonical_sum.h"

namespace onemodel::ops {

constexpr int64_t kNormChunkElements = 16384;  // rows per chunk: max(1, this / row length)

struct RowStats {
  float mean = 0.0f;  // 0 for RMSNormalization
  float inv = 0.0f;   // 1 / sqrt(variance + epsilon)
};

inline RowStats row_stats(const float* x, int64_t n, float epsilon, bool rms) {
  const float count = static_cast<float>(n);
  RowStats s;
  if (!rms) s.mean = canonical_sum(n, [&](int64_t j) { return x[j]; }) / count;
  const float v = canonical_sum(n,
                                [&](int64_t j) {
                                  const float d = x[j] - s.mean;
                                  return d * d;
                                }) /
                  count;
  s.inv = 1.0f / std::sqrt(v + epsilon);
  return s;
}

// Scale and bias as `segments` values each held for `repeat` consecutive elements (n = segments * repeat);
// bias may be null.
// NaN results are canonical.
inline void normalize_row(const float* x, float* y, RowStats s, const float* scale, const float* bias,
                          int64_t segments, int64_t repeat) {
  if (repeat == 1) {
    for (int64_t j = 0; j < segments; ++j) {
      const float v = ((x[j] - s.mean) * s.inv) * scale[j];
      y[j] = canonicalize(bias != nullptr ? v + bias[j] : v);
    }
    return;
  }
  for (int64_t k = 0; k < segments; ++k) {
    const float* xs = x + k * repeat;
    float* ys = y + k * repeat;
    const float a = scale[k];
    if (bias != nullptr) {
      const float b = bias[k];
      for (int64_t j = 0; j < repeat; ++j) ys[j] = canonicalize((((xs[j] - s.mean) * s.inv) * a) + b);
    } else {
      for (int64_t j = 0; j < repeat; ++j) ys[j] = canonicalize(((xs[j] - s.mean) * s.inv) * a);
    }
  }
}

}  // namespace onemodel::ops
