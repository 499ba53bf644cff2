#include "graph/ops/families.h"
#include "graph/ops/reduce/factories.h"

namespace onemodel::ops {

std::span<const OpDef> reduce_defs() {
  static const OpDef defs[] = {
      {"ReduceSum", 1, kLatestOpset, make_reduce_sum},
      {"ReduceMean", 1, kLatestOpset, make_reduce_mean},
      {"ReduceMax", 1, kLatestOpset, make_reduce_max},
      {"ReduceMin", 1, kLatestOpset, make_reduce_min},
      {"ReduceProd", 1, kLatestOpset, make_reduce_prod},
      {"ReduceL1", 1, kLatestOpset, make_reduce_l1},
      {"ReduceL2", 1, kLatestOpset, make_reduce_l2},
      {"ReduceSumSquare", 1, kLatestOpset, make_reduce_sum_square},
      {"ReduceLogSum", 1, kLatestOpset, make_reduce_log_sum},
      {"ReduceLogSumExp", 1, kLatestOpset, make_reduce_log_sum_exp},
      {"ArgMax", 1, kLatestOpset, make_arg_max},
      {"ArgMin", 1, kLatestOpset, make_arg_min},
      {"CumSum", 11, kLatestOpset, make_cum_sum},
  };
  return defs;
}

}  // namespace onemodel::ops
