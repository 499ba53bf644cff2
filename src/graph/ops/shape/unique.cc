// Unique (opset 11+): the distinct elements of the flattened input, or the distinct slices along `axis`, with
// the optional int64 outputs indices (first occurrence of each), inverse_indices (for every input element or
// slice, its entry in Y) and counts. sorted = 1 (default) orders Y ascending, comparing slices element by
// element in row-major order; sorted = 0 keeps the order of first occurrence. NaN is never equal to NaN, so
// every NaN stays on its own; for sorting, NaN ranks after every number and +0 ties with -0 (the first
// occurrence represents them). The output extent depends on the values, so outputs are allocated in run().
#include <cstring>
#include <optional>
#include <string>

#include "graph/ops/elementwise/element_types.h"
#include "graph/ops/run_fail.h"
#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"
#include "graph/ops/shape/stable_order.h"

namespace onemodel::ops {
namespace {

// The n slices being compared, as rows of `length` stored elements.
template <class E>
struct Slices {
  const typename E::Stored* rows;
  int64_t length;

  // Strict weak order of the slices' element sequences: NaN after every number, NaNs tied.
  bool before(int64_t p, int64_t q) const {
    for (int64_t j = 0; j < length; ++j) {
      const auto a = E::load(rows[p * length + j]), b = E::load(rows[q * length + j]);
      const bool a_nan = a != a, b_nan = b != b;
      if (a_nan || b_nan) {
        if (a_nan && b_nan) continue;
        return b_nan;
      }
      if (a < b) return true;
      if (b < a) return false;
    }
    return false;
  }

  bool equal(int64_t p, int64_t q) const {
    for (int64_t j = 0; j < length; ++j) {
      if (!(E::load(rows[p * length + j]) == E::load(rows[q * length + j]))) return false;
    }
    return true;
  }
};

class Unique final : public OpKernel {
 public:
  Unique(std::optional<int64_t> axis, bool sorted) : axis_(axis), sorted_(sorted) {
    supports_exact = true;
    outputs_data_dependent = true;
  }

  // Never called: a data-dependent node is shaped by run().
  void infer(InferContext& ctx) const override { ctx.require_run_time_values(); }

  void run(const OpRun& run) const override {
    visit_dtype(run.inputs[0].dtype, [&](auto elem) { unique<decltype(elem)>(run); });
  }

 private:
  template <class E>
  void unique(const OpRun& run) const {
    using Stored = typename E::Stored;
    const TensorRef& x = run.inputs[0];
    int axis = -1;
    if (axis_) {
      axis = normalize_axis(*axis_, x.shape.rank);
      if (axis < 0)
        run_fail(run,
                 "axis " + std::to_string(*axis_) + " is outside the rank " + std::to_string(x.shape.rank));
    }
    const int64_t n = axis < 0 ? x.count() : x.shape[axis];
    const int64_t outer = axis < 0 ? 1 : x.shape.count(0, axis);
    const int64_t inner = axis < 0 ? 1 : x.shape.count(axis + 1, x.shape.rank);
    const Stored* src = x.as<const Stored>();
    // Slice k as a contiguous row: element (o, i) of x[o, k, i] at o * inner + i.
    const Stored* rows = src;
    if (outer > 1 && inner > 0) {
      Stored* gathered = run.scratch->allocate_array<Stored>(static_cast<size_t>(x.count()));
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t k = 0; k < n; ++k) {
          std::memcpy(gathered + (k * outer + o) * inner, src + (o * n + k) * inner,
                      static_cast<size_t>(inner) * sizeof(Stored));
        }
      }
      rows = gathered;
    }
    const Slices<E> slices{rows, outer * inner};

    auto array = [&](int64_t count) {
      return run.scratch->allocate_array<int64_t>(static_cast<size_t>(count));
    };
    int64_t* order = array(n);
    int64_t* group_of = array(n);  // sorted group of every slice
    int64_t* first = array(n);     // per sorted group: its first slice
    int64_t* count = array(n);
    int64_t* rank = array(n);  // per sorted group: its place in Y
    for (int64_t k = 0; k < n; ++k) order[k] = k;
    order = stable_order(order, array(n), n, [&](int64_t p, int64_t q) { return slices.before(p, q); });
    // Equal slices are neighbours in the sorted order, first occurrence first.
    int64_t groups = 0;
    for (int64_t s = 0; s < n; ++s) {
      if (s == 0 || !slices.equal(order[s - 1], order[s])) {
        first[groups] = order[s];
        count[groups] = 0;
        ++groups;
      }
      group_of[order[s]] = groups - 1;
      ++count[groups - 1];
    }
    if (sorted_) {
      for (int64_t g = 0; g < groups; ++g) rank[g] = g;
    } else {
      for (int64_t g = 0; g < groups; ++g) rank[g] = -1;
      int64_t next = 0;
      for (int64_t k = 0; k < n; ++k) {
        if (rank[group_of[k]] < 0) rank[group_of[k]] = next++;
      }
    }

    Shape y_shape = axis < 0 ? Shape{groups} : x.shape;
    if (axis >= 0) y_shape[axis] = groups;
    TensorRef& y = run.allocator->allocate(0, x.dtype, y_shape);
    Stored* dst = y.as<Stored>();
    for (int64_t o = 0; o < outer && inner > 0; ++o) {
      for (int64_t g = 0; g < groups; ++g) {
        std::memcpy(dst + (o * groups + rank[g]) * inner, src + (o * n + first[g]) * inner,
                    static_cast<size_t>(inner) * sizeof(Stored));
      }
    }
    const size_t outputs = run.outputs.size();
    if (outputs > 1) {
      int64_t* indices = run.allocator->allocate(1, DType::I64, Shape{groups}).as<int64_t>();
      for (int64_t g = 0; g < groups; ++g) indices[rank[g]] = first[g];
    }
    if (outputs > 2) {
      int64_t* inverse = run.allocator->allocate(2, DType::I64, Shape{n}).as<int64_t>();
      for (int64_t k = 0; k < n; ++k) inverse[k] = rank[group_of[k]];
    }
    if (outputs > 3) {
      int64_t* counts = run.allocator->allocate(3, DType::I64, Shape{groups}).as<int64_t>();
      for (int64_t g = 0; g < groups; ++g) counts[rank[g]] = count[g];
    }
  }

  std::optional<int64_t> axis_;
  bool sorted_;
};

}  // namespace

std::unique_ptr<OpKernel> make_unique_op(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  if (node.num_outputs() < 1 || node.num_outputs() > 4) node.fail("needs one to four outputs");
  const int64_t sorted = node.get_int("sorted", 1);
  if (sorted != 0 && sorted != 1) node.fail("sorted must be 0 or 1");
  std::optional<int64_t> axis;
  if (node.find("axis") != nullptr) axis = node.get_int("axis", 0);
  return std::make_unique<Unique>(axis, sorted == 1);
}

}  // namespace onemodel::ops
