// Factories of the reductions, joined into ops::reduce_defs() by reduce_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

// reductions.cc
std::unique_ptr<OpKernel> make_reduce_sum(const NodeInfo& node);
std::unique_ptr<OpKernel> make_reduce_mean(const NodeInfo& node);
std::unique_ptr<OpKernel> make_reduce_max(const NodeInfo& node);
std::unique_ptr<OpKernel> make_reduce_min(const NodeInfo& node);
std::unique_ptr<OpKernel> make_reduce_prod(const NodeInfo& node);
std::unique_ptr<OpKernel> make_reduce_l1(const NodeInfo& node);
std::unique_ptr<OpKernel> make_reduce_l2(const NodeInfo& node);
std::unique_ptr<OpKernel> make_reduce_sum_square(const NodeInfo& node);
std::unique_ptr<OpKernel> make_reduce_log_sum(const NodeInfo& node);
std::unique_ptr<OpKernel> make_reduce_log_sum_exp(const NodeInfo& node);

std::unique_ptr<OpKernel> make_arg_max(const NodeInfo& node);  // arg_reduce.cc
std::unique_ptr<OpKernel> make_arg_min(const NodeInfo& node);  // arg_reduce.cc
std::unique_ptr<OpKernel> make_cum_sum(const NodeInfo& node);  // cum_sum.cc

}  // namespace onemodel::ops
