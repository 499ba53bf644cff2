// NonZero: the coordinates of the non-zero elements, as int64 [max(rank, 1), count] in row-major order. The
// count depends on the values, so the output is allocated in run(). -0.0 is zero, NaN is not; a scalar counts
// as a one-element vector.
#include <cstring>

#include "graph/ops/shape/factories.h"
#include "graph/ops/shape/op_inputs.h"

namespace onemodel::ops {
namespace {

// Bits that decide zero-ness: all of an integer or bool, all but the sign bit of a float.
uint64_t value_mask(DType t) {
  switch (t) {
    case DType::F32:
      return 0x7FFFFFFFu;
    case DType::F64:
      return 0x7FFFFFFFFFFFFFFFull;
    case DType::F16:
    case DType::BF16:
      return 0x7FFFu;
    default:
      return ~uint64_t{0};
  }
}

template <size_t W>
bool is_nonzero(const std::byte* p, uint64_t mask) {
  uint64_t bits = 0;
  std::memcpy(&bits, p, W);  // little-endian targets: the low W bytes
  return (bits & mask) != 0;
}

template <size_t W>
void find_non_zero(const OpRun& run) {
  const TensorRef& x = run.inputs[0];
  const uint64_t mask = value_mask(x.dtype);
  const int64_t n = x.count();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += is_nonzero<W>(x.data + static_cast<size_t>(i) * W, mask) ? 1 : 0;
  const int rank = x.shape.rank;
  const int rows = rank == 0 ? 1 : rank;
  TensorRef& out = run.allocator->allocate(0, DType::I64, Shape{rows, count});
  int64_t* y = out.as<int64_t>();
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!is_nonzero<W>(x.data + static_cast<size_t>(i) * W, mask)) continue;
    int64_t rest = i;
    for (int a = rank - 1; a >= 0; --a) {
      y[a * count + k] = rest % x.shape[a];
      rest /= x.shape[a];
    }
    if (rank == 0) y[k] = 0;
    ++k;
  }
}

class NonZero final : public OpKernel {
 public:
  NonZero() {
    supports_exact = true;
    outputs_data_dependent = true;
  }

  // Never called: a data-dependent node is shaped by run().
  void infer(InferContext& ctx) const override { ctx.require_run_time_values(); }

  void run(const OpRun& run) const override {
    if (run.inputs[0].dtype == DType::String) {
      throw SessionError(SessionError::Kind::Unsupported, "NonZero does not take strings",
                         run.node != nullptr ? run.node->display_name() : std::string());
    }
    switch (dtype_size(run.inputs[0].dtype)) {
      case 1:
        return find_non_zero<1>(run);
      case 2:
        return find_non_zero<2>(run);
      case 4:
        return find_non_zero<4>(run);
      default:
        return find_non_zero<8>(run);
    }
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_non_zero(const NodeInfo& node) {
  require_inputs(node, 1, 1);
  return std::make_unique<NonZero>();
}

}  // namespace onemodel::ops
