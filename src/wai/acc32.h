// The acc32 fast path (wai-ops/1 §6, §7.2): a conv node whose bounds certificate meets acc32 forms its sums
// in int32 through the session's kernel path (src/wai/conv_acc32_impl.h), then requantises exactly as the
// acc64 interpreter does. The results are the same integers as eval_node's, on every path.
#pragma once

#include "kernels/kernel_table.h"
#include "wai/certify.h"
#include "wai/model.h"

namespace onemodel::wai {

// Whether a node may take the acc32 path: a conv that fits acc32 (§8.5) and reads an input whose certified
// interval fits i32.
bool acc32_eligible(const Node& n, const NodeBounds& node, const Interval& input);

// out = conv(x) of §5.2 for an eligible node; out's shape is planned and its data sized.
void conv_acc32(const KernelTable& kernels, const ThreadContext& threads, const Node& n, const IntTensor& x,
                IntTensor& out);

}  // namespace onemodel::wai
