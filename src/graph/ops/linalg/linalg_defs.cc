#include "graph/ops/families.h"
#include "graph/ops/linalg/factories.h"

namespace onemodel::ops {

std::span<const OpDef> linalg_defs() {
  static const OpDef defs[] = {
      {"MatMul", 1, kLatestOpset, make_matmul},
      {"Gemm", 1, kLatestOpset, make_gemm},
      {"Det", 11, kLatestOpset, make_det},
      {"Einsum", 12, kLatestOpset, make_einsum},
  };
  return defs;
}

}  // namespace onemodel::ops
