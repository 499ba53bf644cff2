// Factories of the normalisation operators, joined into ops::norm_defs() by norm_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_softmax(const NodeInfo& node);      // softmax.cc
std::unique_ptr<OpKernel> make_log_softmax(const NodeInfo& node);  // softmax.cc
std::unique_ptr<OpKernel> make_hardmax(const NodeInfo& node);      // softmax.cc
std::unique_ptr<OpKernel> make_layer_norm(const NodeInfo& node);   // layer_norm.cc
std::unique_ptr<OpKernel> make_rms_norm(const NodeInfo& node);     // layer_norm.cc

std::unique_ptr<OpKernel> make_instance_norm(const NodeInfo& node);       // group_norm.cc
std::unique_ptr<OpKernel> make_group_norm(const NodeInfo& node);          // group_norm.cc
std::unique_ptr<OpKernel> make_mean_variance_norm(const NodeInfo& node);  // mean_variance_norm.cc
std::unique_ptr<OpKernel> make_lrn(const NodeInfo& node);                 // lrn.cc

}  // namespace onemodel::ops
