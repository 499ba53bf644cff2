// Factories of the vision operators, joined into ops::vision_defs() by vision_defs.cc.
#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_batch_norm(const NodeInfo& node);           // batch_norm.cc
std::unique_ptr<OpKernel> make_prelu(const NodeInfo& node);                // prelu.cc
std::unique_ptr<OpKernel> make_legacy_prelu(const NodeInfo& node);         // prelu.cc (opsets 1-6)
std::unique_ptr<OpKernel> make_resize(const NodeInfo& node);               // resize.cc
std::unique_ptr<OpKernel> make_upsample(const NodeInfo& node);             // resize.cc
std::unique_ptr<OpKernel> make_non_max_suppression(const NodeInfo& node);  // non_max_suppression.cc
std::unique_ptr<OpKernel> make_roi_align(const NodeInfo& node);            // roi_align.cc
std::unique_ptr<OpKernel> make_grid_sample(const NodeInfo& node);          // grid_sample.cc

}  // namespace onemodel::ops
