// TopK: the k largest (or smallest) elements along an axis with their int64 indices, always sorted. Ties keep
// input order (the lower index first, both directions) and NaN ranks above every number
// (ops-shape-indexing.md §5). k is an attribute before opset 10 and an input from then on.
#include <algorithm>
#include <string>

#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"
#include "graph/ops/shape/stable_order.h"

namespace onemodel::ops {
namespace {

// Strict "a ranks before b" for values loaded in the computing type V.
template <class V>
bool ranks_before(V a, V b, bool largest) {
  const bool a_nan = a != a, b_nan = b != b;
  if (largest) return a_nan ? !b_nan : (!b_nan && a > b);
  return b_nan ? !a_nan : (!a_nan && a < b);
}

// The positions of the k best elements of `row`, in stable rank order; returns `order` or `tmp` (n entries
// each), whichever holds the result. Small k keeps a sorted list of the best k by insertion, larger k runs a
// bottom-up merge sort; either way the result is the stable order.
template <class V>
const int64_t* select(const V* row, int64_t n, int64_t k, bool largest, int64_t* order, int64_t* tmp) {
  if (k <= 16) {
    int64_t kept = 0;
    for (int64_t i = 0; i < n; ++i) {
      // Insert after every kept entry that ranks before or ties with row[i] (ties keep input order).
      int64_t at = kept;
      while (at > 0 && ranks_before(row[i], row[order[at - 1]], largest)) --at;
      if (at >= k) continue;
      for (int64_t j = std::min(kept, k - 1); j > at; --j) order[j] = order[j - 1];
      order[at] = i;
      kept = std::min(kept + 1, k);
    }
    return order;
  }
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  return stable_order(order, tmp, n,
                      [&](int64_t a, int64_t b) { return ranks_before(row[a], row[b], largest); });
}

class TopK final : public OpKernel {
 public:
  TopK(int64_t axis, bool largest, int64_t k_attribute, bool k_from_input)
      : axis_(axis), largest_(largest), k_attribute_(k_attribute), k_from_input_(k_from_input) {
    supports_exact = true;
  }

  void infer(InferContext& ctx) const override {
    const Shape& x = ctx.input_shape(0);
    const DType dtype = ctx.input_dtype(0);
    if (dtype == DType::Bool) ctx.node().unsupported("TopK: element type Bool is not supported");
    const int axis = normalize_axis(axis_, x.rank);
    if (axis < 0)
      ctx.fail("axis " + std::to_string(axis_) + " is outside the rank " + std::to_string(x.rank));
    int64_t k = k_attribute_;
    if (k_from_input_) {
      const auto listed = int_seq_input(ctx, 1, "k");
      if (!listed) return;
      if (listed->size() != 1) ctx.fail("k must hold one value");
      k = (*listed)[0];
    }
    if (k < 0 || k > x[axis])
      ctx.fail("k " + std::to_string(k) + " is outside [0, " + std::to_string(x[axis]) + "]");
    Shape out = x;
    out[axis] = k;
    ctx.set_output(0, dtype, out);
    ctx.set_output(1, DType::I64, out);
  }

  void run(const OpRun& run) const override {
    visit_dtype(run.inputs[0].dtype, [&](auto elem) {
      using E = decltype(elem);
      if constexpr (E::dtype != DType::Bool) top_k<E>(run);
    });
  }

 private:
  template <class E>
  void top_k(const OpRun& run) const {
    using V = typename E::Value;
    using S = typename E::Stored;
    const TensorRef& x = run.inputs[0];
    const TensorRef& values = run.outputs[0];
    const int axis = normalize_axis(axis_, x.shape.rank);
    const int64_t n = x.shape[axis], k = values.shape[axis];
    const int64_t outer = x.shape.count(0, axis), inner = x.shape.count(axis + 1, x.shape.rank);
    if (k == 0 || outer * inner == 0) return;
    V* row = run.scratch->allocate_array<V>(static_cast<size_t>(n));
    int64_t* order = run.scratch->allocate_array<int64_t>(static_cast<size_t>(n));
    int64_t* tmp = run.scratch->allocate_array<int64_t>(static_cast<size_t>(n));
    const S* src = x.as<const S>();
    S* top = values.as<S>();
    int64_t* picked = run.outputs[1].as<int64_t>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        for (int64_t j = 0; j < n; ++j) row[j] = E::load(src[(o * n + j) * inner + i]);
        const int64_t* best = select(row, n, k, largest_, order, tmp);
        for (int64_t j = 0; j < k; ++j) {
          const int64_t at = (o * k + j) * inner + i;
          top[at] = src[(o * n + best[j]) * inner + i];
          picked[at] = best[j];
        }
      }
    }
  }

  int64_t axis_;
  bool largest_;
  int64_t k_attribute_;
  bool k_from_input_;
};

}  // namespace

std::unique_ptr<OpKernel> make_top_k(const NodeInfo& node) {
  const bool k_from_input = node.opset() >= 10;
  require_inputs(node, k_from_input ? 2 : 1, k_from_input ? 2 : 1);
  if (node.num_outputs() != 2) node.fail("needs two outputs");
  if (!k_from_input && node.find("k") == nullptr) node.fail("needs the k attribute");
  const int64_t largest = node.opset() >= 11 ? node.get_int("largest", 1) : 1;
  return std::make_unique<TopK>(node.get_int("axis", -1), largest != 0, node.get_int("k", 0), k_from_input);
}

}  // namespace onemodel::ops
