// What the signal operators share: scalar inputs whose values fix the output shape, the output_datatype
// attribute, and a direct discrete Fourier transform in double precision. None of these operators is exact
// (ops-coverage.md "Exactness"): they use the platform's cos and sin.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "graph/op.h"

namespace onemodel::ops {

// The one integer (int32 or int64) held by input i. std::nullopt when the value is not known yet: the node
// has then asked to be shaped again with run-time values. Fails naming the node on any other tensor.
std::optional<int64_t> int_scalar_input(InferContext& ctx, size_t i, std::string_view what);

// The output_datatype attribute: float32 (the default) or float64; other types are reported as unsupported.
DType output_datatype(const NodeInfo& node);

// A transform of length n: bins k = 0 .. bins-1 of sum over t < n of x[t] e^(-+2 pi i k t / n), in double,
// from a table of e^(2 pi i j / n). Inverse transforms use the positive exponent and divide by n.
class Dft {
 public:
  // `table` holds 2 * n doubles (cos, sin pairs) from the run's scratch.
  Dft(int64_t n, bool inverse, double* table);
  // x: n complex values as (re, im) pairs; out: `bins` pairs.
  void transform(const double* x, int64_t bins, double* out) const;
  int64_t length() const { return n_; }

 private:
  int64_t n_;
  bool inverse_;
  const double* table_;
};

}  // namespace onemodel::ops
