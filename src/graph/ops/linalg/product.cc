#include "graph/ops/linalg/product.h"

#include <algorithm>

namespace onemodel::ops {

std::shared_ptr<const PackedWeight> pack_weight(const PrepareContext& ctx, const float* b, int64_t b_row,
                                                int64_t b_col, int64_t k, int64_t n) {
  return pack_weight(ctx.kernels(), b, b_row, b_col, k, n);
}

std::shared_ptr<const PackedWeight> pack_weight(const KernelTable& kernels, const float* b, int64_t b_row,
                                                int64_t b_col, int64_t k, int64_t n) {
  auto weight = std::make_shared<PackedWeight>();
  const auto floats = static_cast<int64_t>(kernels.packed_b_floats(k, n));
  weight->storage = ConstTensor::allocate(DType::F32, Shape{floats});
  kernels.pack_b(b, b_row, b_col, k, n, weight->storage.ref.as<float>());
  weight->packed = {weight->storage.ref.as<const float>(), k, n};
  return weight;
}

float* gemm_scratch(const OpRun& run, const GemmArgs& args, const PackedWeight* packed) {
  const size_t floats = packed != nullptr ? run.kernels->gemm_packed_scratch_floats(args, run.threads)
                                          : run.kernels->gemm_scratch_floats(args, run.threads);
  return floats == 0 ? nullptr : run.scratch->allocate_array<float>(floats);
}

void run_gemm(const OpRun& run, GemmArgs args, const PackedWeight* packed, float* scratch) {
  if (args.m == 0 || args.n == 0) return;
  args.exact = run.exact;
  if (packed != nullptr) {
    run.kernels->gemm_packed(args, packed->packed, scratch, run.threads);
  } else {
    run.kernels->gemm(args, scratch, run.threads);
  }
}

}  // namespace onemodel::ops
