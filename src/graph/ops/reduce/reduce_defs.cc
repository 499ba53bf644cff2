#include "graph/ops/families.h"
#include "graph/ops/reduce/factories.h"

namespace onemodel::ops {

std::span<const OpDef> reduce_defs() {
  static const OpDef defs[] = {
      {"ReduceSum", 7, kLatestOpset, make_reduce_sum},
      {"ReduceMean", 7, kLatestOpset, make_reduce_mean},
      {"ReduceMax", 7, kLatestOpset, make_reduce_max},
      {"ReduceMin", 7, kLatestOpset, make_reduce_min},
      {"ReduceProd", 7, kLatestOpset, make_reduce_prod},
      {"ReduceL1", 7, kLatestOpset, make_reduce_l1},
      {"ReduceL2", 7, kLatestOpset, make_reduce_l2},
      {"ReduceSumSquare", 7, kLatestOpset, make_reduce_sum_square},
      {"ReduceLogSum", 7, kLatestOpset, make_reduce_log_sum},
      {"ReduceLogSumExp", 7, kLatestOpset, make_reduce_log_sum_exp},
      {"ArgMax", 7, kLatestOpset, make_arg_max},
      {"ArgMin", 7, kLatestOpset, make_arg_min},
      {"CumSum", 11, kLatestOpset, make_cum_sum},
  };
  return defs;
}

}  // namespace onemodel::ops
