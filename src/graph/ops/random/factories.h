// Factories of the random operators, joined into ops::random_defs() by random_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_random_uniform(const NodeInfo& node);       // random_tensor.cc
std::unique_ptr<OpKernel> make_random_uniform_like(const NodeInfo& node);  // random_tensor.cc
std::unique_ptr<OpKernel> make_random_normal(const NodeInfo& node);        // random_tensor.cc
std::unique_ptr<OpKernel> make_random_normal_like(const NodeInfo& node);   // random_tensor.cc
std::unique_ptr<OpKernel> make_bernoulli(const NodeInfo& node);            // bernoulli.cc

}  // namespace onemodel::ops
