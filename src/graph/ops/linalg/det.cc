// Det: the determinant of each square matrix in the last two axes, by LU decomposition with partial pivoting.
// Exact (ops-coverage.md "Exactness": only + - * / and comparisons, in this fixed order):
//   for column k = 0 .. m-1: the pivot is the first row r >= k with the largest |a[r][k]|; a zero pivot makes
//   the determinant +0; rows r and k swap, flipping the sign; then for each row i > k in
//   increasing order f = a[i][k] / a[k][k] and a[i][j] = a[i][j] - f * a[k][j] for j = k+1 .. m-1 increasing.
//   det = ((a[0][0] * a[1][1]) * a[2][2]) ..., negated after an odd number of swaps; an empty matrix gives 1.
// A NaN result is canonical in both modes, so the two modes give the same bits.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "graph/ops/linalg/canonical_nan.h"
#include "graph/ops/linalg/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

template <class T>
T determinant(T* a, int64_t m) {
  bool negate = false;
  for (int64_t k = 0; k < m; ++k) {
    int64_t pivot = k;
    for (int64_t r = k + 1; r < m; ++r) {
      if (std::fabs(a[r * m + k]) > std::fabs(a[pivot * m + k])) pivot = r;
    }
    if (a[pivot * m + k] == T(0)) return T(0);
    if (pivot != k) {
      for (int64_t j = 0; j < m; ++j) std::swap(a[pivot * m + j], a[k * m + j]);
      negate = !negate;
    }
    for (int64_t i = k + 1; i < m; ++i) {
      const T f = a[i * m + k] / a[k * m + k];
      for (int64_t j = k + 1; j < m; ++j) a[i * m + j] = a[i * m + j] - f * a[k * m + j];
    }
  }
  if (m == 0) return T(1);
  T det = a[0];
  for (int64_t k = 1; k < m; ++k) det = det * a[k * m + k];
  return canonicalize(negate ? -det : det);
}

class Det final : public OpKernel {
 public:
  Det() { supports_exact = true; }

  void infer(InferContext& ctx) const override {
    const Shape& x = ctx.input_shape(0);
    const DType t = ctx.input_dtype(0);
    if (t != DType::F32 && t != DType::F64) ctx.fail("X must be float32 or float64");
    if (x.rank < 2 || x[x.rank - 1] != x[x.rank - 2])
      ctx.fail("X " + x.str() + " must end in a square matrix");
    Shape out = x;
    out.rank -= 2;
    ctx.set_output(0, t, out);
  }

  void run(const OpRun& run) const override {
    if (run.inputs[0].dtype == DType::F32) {
      compute<float>(run);
    } else {
      compute<double>(run);
    }
  }

 private:
  template <class T>
  static void compute(const OpRun& run) {
    const TensorRef& x = run.inputs[0];
    const int64_t m = x.shape[x.shape.rank - 1];
    const int64_t batch = run.outputs[0].count();
    T* work = run.scratch->allocate_array<T>(static_cast<size_t>(std::max<int64_t>(m * m, 1)));
    for (int64_t b = 0; b < batch; ++b) {
      const T* src = x.as<const T>() + b * m * m;
      std::copy(src, src + m * m, work);
      run.outputs[0].as<T>()[b] = determinant(work, m);
    }
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_det(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  return std::make_unique<Det>();
}

}  // namespace onemodel::ops
