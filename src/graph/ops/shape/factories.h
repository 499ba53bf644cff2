// Factories of the shape and indexing operators, joined into ops::shape_defs() by shape_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_identity(const NodeInfo& node);           // views.cc
std::unique_ptr<OpKernel> make_reshape(const NodeInfo& node);            // views.cc
std::unique_ptr<OpKernel> make_flatten(const NodeInfo& node);            // views.cc
std::unique_ptr<OpKernel> make_squeeze(const NodeInfo& node);            // views.cc
std::unique_ptr<OpKernel> make_unsqueeze(const NodeInfo& node);          // views.cc
std::unique_ptr<OpKernel> make_constant(const NodeInfo& node);           // constant.cc
std::unique_ptr<OpKernel> make_shape(const NodeInfo& node);              // shape.cc
std::unique_ptr<OpKernel> make_transpose(const NodeInfo& node);          // transpose.cc
std::unique_ptr<OpKernel> make_gather(const NodeInfo& node);             // gather.cc
std::unique_ptr<OpKernel> make_concat(const NodeInfo& node);             // concat.cc
std::unique_ptr<OpKernel> make_size(const NodeInfo& node);               // shape.cc
std::unique_ptr<OpKernel> make_slice(const NodeInfo& node);              // slice.cc
std::unique_ptr<OpKernel> make_expand(const NodeInfo& node);             // expand_tile.cc
std::unique_ptr<OpKernel> make_tile(const NodeInfo& node);               // expand_tile.cc
std::unique_ptr<OpKernel> make_pad(const NodeInfo& node);                // pad.cc
std::unique_ptr<OpKernel> make_constant_of_shape(const NodeInfo& node);  // constant_of_shape.cc
std::unique_ptr<OpKernel> make_range(const NodeInfo& node);              // range.cc
std::unique_ptr<OpKernel> make_split(const NodeInfo& node);              // split.cc
std::unique_ptr<OpKernel> make_dropout(const NodeInfo& node);            // dropout.cc
std::unique_ptr<OpKernel> make_eye_like(const NodeInfo& node);           // eye_like.cc
std::unique_ptr<OpKernel> make_gather_elements(const NodeInfo& node);    // gather_elements.cc
std::unique_ptr<OpKernel> make_gather_nd(const NodeInfo& node);          // nd_index.cc
std::unique_ptr<OpKernel> make_scatter_nd(const NodeInfo& node);         // nd_index.cc
std::unique_ptr<OpKernel> make_trilu(const NodeInfo& node);              // trilu.cc
std::unique_ptr<OpKernel> make_one_hot(const NodeInfo& node);            // one_hot.cc
std::unique_ptr<OpKernel> make_non_zero(const NodeInfo& node);           // non_zero.cc
std::unique_ptr<OpKernel> make_top_k(const NodeInfo& node);              // top_k.cc
std::unique_ptr<OpKernel> make_scatter_elements(const NodeInfo& node);   // scatter_elements.cc
std::unique_ptr<OpKernel> make_compress(const NodeInfo& node);           // compress.cc
std::unique_ptr<OpKernel> make_unique_op(const NodeInfo& node);          // unique.cc
std::unique_ptr<OpKernel> make_reverse_sequence(const NodeInfo& node);   // reverse_sequence.cc
std::unique_ptr<OpKernel> make_depth_to_space(const NodeInfo& node);     // depth_space.cc
std::unique_ptr<OpKernel> make_space_to_depth(const NodeInfo& node);     // depth_space.cc

}  // namespace onemodel::ops
