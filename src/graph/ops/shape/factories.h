// Factories of the shape and indexing operators, joined into ops::shape_defs() by shape_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_identity(const NodeInfo& node);   // views.cc
std::unique_ptr<OpKernel> make_reshape(const NodeInfo& node);    // views.cc
std::unique_ptr<OpKernel> make_flatten(const NodeInfo& node);    // views.cc
std::unique_ptr<OpKernel> make_squeeze(const NodeInfo& node);    // views.cc
std::unique_ptr<OpKernel> make_unsqueeze(const NodeInfo& node);  // views.cc
std::unique_ptr<OpKernel> make_constant(const NodeInfo& node);   // constant.cc
std::unique_ptr<OpKernel> make_shape(const NodeInfo& node);      // shape.cc
std::unique_ptr<OpKernel> make_transpose(const NodeInfo& node);  // transpose.cc
std::unique_ptr<OpKernel> make_gather(const NodeInfo& node);     // gather.cc
std::unique_ptr<OpKernel> make_concat(const NodeInfo& node);     // concat.cc

}  // namespace onemodel::ops
