#pragma once

#include <memory>

#include "graph/op.h"

namespace onemodel::ops {

std::unique_ptr<OpKernel> make_if(const NodeInfo& node);
std::unique_ptr<OpKernel> make_loop(const NodeInfo& node);
std::unique_ptr<OpKernel> make_scan(const NodeInfo& node);
std::unique_ptr<OpKernel> make_sequence_map(const NodeInfo& node);

}  // namespace onemodel::ops
