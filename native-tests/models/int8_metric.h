// The statistics of the int8 metric of oracles.md on float32 outputs: the 1st-percentile cosine similarity
// over the rows of the last axis (the minimum below 100 rows), for outputs of rank 3 or more the minimum
// cosine of the vectors averaged over the second-to-last axis, and the share of rows whose argmax agrees.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "onemodel/onemodel.h"

namespace onemodel::test {

// Cosine similarity of each row of the last axis of two float32 tensors of one shape.
inline std::vector<double> row_cosines(const float* a, const float* b, size_t rows, size_t width) {
  std::vector<double> cos(rows);
  for (size_t r = 0; r < rows; ++r) {
    double ab = 0, aa = 0, bb = 0;
    for (size_t i = r * width; i < (r + 1) * width; ++i) {
      ab += static_cast<double>(a[i]) * b[i];
      aa += static_cast<double>(a[i]) * a[i];
      bb += static_cast<double>(b[i]) * b[i];
    }
    cos[r] = aa == 0 && bb == 0 ? 1.0 : ab / std::sqrt(aa * bb);
  }
  return cos;
}

struct Int8Stats {
  double row_cosine = 0;     // 1st percentile (minimum below 100 rows)
  double pooled_cosine = 1;  // rank >= 3 only
  double agreement = 0;      // share of rows whose argmax agrees
};

inline Int8Stats int8_stats(const Tensor& got, const Tensor& want) {
  EXPECT_EQ(got.dtype(), DType::F32);
  EXPECT_EQ(got.shape(), want.shape());
  if (got.dtype() != DType::F32 || got.shape() != want.shape() || got.shape().size() == 0) return {};
  const auto g = got.data<float>();
  const auto w = want.data<float>();
  const auto width = static_cast<size_t>(got.shape()[got.shape().size() - 1]);
  const size_t rows = width == 0 ? 0 : g.size() / width;
  Int8Stats s;
  std::vector<double> cos = row_cosines(g.data(), w.data(), rows, width);
  std::sort(cos.begin(), cos.end());
  s.row_cosine = cos.empty() ? 1.0 : cos[rows < 100 ? 0 : rows / 100];
  size_t agree = 0;
  for (size_t r = 0; r < rows; ++r) {
    const float* gr = g.data() + r * width;
    const float* wr = w.data() + r * width;
    agree += std::max_element(gr, gr + width) - gr == std::max_element(wr, wr + width) - wr ? 1 : 0;
  }
  s.agreement = rows == 0 ? 1.0 : static_cast<double>(agree) / static_cast<double>(rows);
  if (got.shape().size() >= 3 && rows > 0) {
    const auto steps = static_cast<size_t>(got.shape()[got.shape().size() - 2]);
    const size_t vectors = rows / steps;
    std::vector<float> gp(vectors * width), wp(vectors * width);
    for (size_t v = 0; v < vectors; ++v) {
      for (size_t i = 0; i < width; ++i) {
        double gs = 0, ws = 0;
        for (size_t t = 0; t < steps; ++t) {
          gs += g[(v * steps + t) * width + i];
          ws += w[(v * steps + t) * width + i];
        }
        gp[v * width + i] = static_cast<float>(gs / static_cast<double>(steps));
        wp[v * width + i] = static_cast<float>(ws / static_cast<double>(steps));
      }
    }
    const std::vector<double> pooled = row_cosines(gp.data(), wp.data(), vectors, width);
    s.pooled_cosine = *std::min_element(pooled.begin(), pooled.end());
  }
  return s;
}

}  // namespace onemodel::test
