// The fused attention node the `attention` graph pass creates (graph-passes.md); not in the operator table.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "graph/op.h"

namespace onemodel::ops {

// What the pass absorbed. The node's inputs are Q, K, V and, with has_mask, the additive mask. The chain's
// operands are transpose(input, perm) for each perm given (empty: the input itself): Q [.., q_len, d], the
// first product's B operand K^T [.., d, k_len], and V [.., k_len, dv]. The chain's result R [.., q_len, dv]
// is written as transpose(R, out_perm) when out_perm is given. Leading axes broadcast as MatMul's do (at most
// two of them), the mask broadcasts as Add's does against the scores [.., q_len, k_len].
struct AttentionConfig {
  std::vector<int64_t> q_perm, kt_perm, v_perm, out_perm;
  float scale = 1.0f;  // multiplies the scores before the mask is added
  bool has_mask = false;
};

std::unique_ptr<OpKernel> make_attention(const AttentionConfig& config);

}  // namespace onemodel::ops
