// Factories of the pooling operators, joined into ops::pool_defs() by pool_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_max_pool(const NodeInfo& node);             // max_pool.cc
std::unique_ptr<OpKernel> make_global_max_pool(const NodeInfo& node);      // max_pool.cc
std::unique_ptr<OpKernel> make_average_pool(const NodeInfo& node);         // average_pool.cc
std::unique_ptr<OpKernel> make_global_average_pool(const NodeInfo& node);  // average_pool.cc
std::unique_ptr<OpKernel> make_lp_pool(const NodeInfo& node);              // lp_pool.cc
std::unique_ptr<OpKernel> make_global_lp_pool(const NodeInfo& node);       // lp_pool.cc
std::unique_ptr<OpKernel> make_max_unpool(const NodeInfo& node);           // max_unpool.cc

}  // namespace onemodel::ops
